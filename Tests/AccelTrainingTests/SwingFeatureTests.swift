import AccelGestures
import AccelLearning
import Testing

/// The swing features are the swing rule's half-swings: they use its default parameters.
@Suite struct SwingFeatureTests {
  @Test func theSwingFeaturesUseTheRulesDefaults() {
    let rule = SwingRule.Configuration()
    #expect(FeatureSpec.swingAxisTauSeconds == rule.axisTauSeconds)
    #expect(FeatureSpec.swingHysteresisG == rule.hysteresisG)
    #expect(FeatureSpec.swingG == rule.swingG)
    #expect(FeatureSpec.swingMinHz == rule.minHz)
    #expect(FeatureSpec.swingMaxHz == rule.maxHz)
  }
}
