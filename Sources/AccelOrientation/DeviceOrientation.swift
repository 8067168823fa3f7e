/// The device orientations an app is told about.
public enum DeviceOrientation: String, CaseIterable, Sendable {
  case portrait
  case portraitUpsideDown = "portrait-upside-down"
  case landscapeLeft = "landscape-left"
  case landscapeRight = "landscape-right"
  case faceUp = "face-up"
  case faceDown = "face-down"
  case unknown

  /// The position of this case in `allCases` (for tables that store classes as small integers).
  public var index: Int {
    switch self {
    case .portrait: 0
    case .portraitUpsideDown: 1
    case .landscapeLeft: 2
    case .landscapeRight: 3
    case .faceUp: 4
    case .faceDown: 5
    case .unknown: 6
    }
  }
}

/// Classifies gravity estimates into device orientations.
///
/// - `unknown` while the raw reading is far from 1 g (| |a| - 1 | > `accelerationTolerance`): the
///   device is accelerating and gravity cannot be told from motion.
/// - `face-up` / `face-down` within `flatAngle` degrees of lying flat (tilt < flatAngle, or
///   > 180 - flatAngle).
/// - Otherwise the seed's four classes from the up angle u = atan2(g_y, -g_x) in radians:
///   portrait for u in [-2.25, -0.75], landscape-right for (-0.75, 0.75), portrait-upside-down for
///   [0.75, 2.25], landscape-left otherwise.
///
/// With `hysteresis` (degrees) and a current orientation, the current class's region is widened by
/// that much on every side, so a reading hovering at a boundary keeps its class.
public struct OrientationClassifier: Sendable, Equatable {
  public var flatAngle: Double
  public var accelerationTolerance: Double
  public var hysteresis: Double

  public static let defaultFlatAngle = 25.0
  public static let defaultAccelerationTolerance = 0.2
  public static let defaultHysteresis = 10.0

  public init(
    flatAngle: Double = defaultFlatAngle, accelerationTolerance: Double = defaultAccelerationTolerance,
    hysteresis: Double = defaultHysteresis
  ) {
    self.flatAngle = flatAngle
    self.accelerationTolerance = accelerationTolerance
    self.hysteresis = hysteresis
  }

  /// - Parameters:
  ///   - gravity: the gravity estimate (g, Apple's convention).
  ///   - magnitude: |a| of the raw reading, in g.
  ///   - current: the orientation held so far, favoured by the hysteresis (nil: none).
  public func classify(
    gravity g: (Double, Double, Double), magnitude: Double, current: DeviceOrientation? = nil
  ) -> DeviceOrientation {
    classify(
      tilt: Attitude.tilt(g.0, g.1, g.2), upAngle: Attitude.upAngle(g.0, g.1), magnitude: magnitude,
      current: current)
  }

  /// The same, from gravity's tilt (degrees) and up angle (radians) when they are computed already.
  public func classify(
    tilt: Double, upAngle u: Double, magnitude: Double, current: DeviceOrientation? = nil
  ) -> DeviceOrientation {
    guard abs(magnitude - 1) <= accelerationTolerance else { return .unknown }
    guard tilt.isFinite else { return .unknown }
    let h = current == nil ? 0 : hysteresis
    // Flat classes: the current one keeps its region widened; others must be entered without it.
    let upLimit = flatAngle + (current == .faceUp ? h : current == nil ? 0 : -h)
    let downLimit = 180 - flatAngle - (current == .faceDown ? h : current == nil ? 0 : -h)
    if tilt < upLimit { return .faceUp }
    if tilt > downLimit { return .faceDown }
    if let current, current != .faceUp && current != .faceDown && current != .unknown,
      Self.contains(current, u, widenedBy: h / Attitude.degreesPerRadian)
    {
      return current
    }
    return Self.upright(u)
  }

  /// The seed's four classes.
  public static func upright(_ u: Double) -> DeviceOrientation {
    if u >= -2.25 && u <= -0.75 { return .portrait }
    if u > -0.75 && u < 0.75 { return .landscapeRight }
    if u >= 0.75 && u <= 2.25 { return .portraitUpsideDown }
    return .landscapeLeft
  }

  static func contains(_ o: DeviceOrientation, _ u: Double, widenedBy w: Double) -> Bool {
    switch o {
    case .portrait: return u >= -2.25 - w && u <= -0.75 + w
    case .landscapeRight: return u > -0.75 - w && u < 0.75 + w
    case .portraitUpsideDown: return u >= 0.75 - w && u <= 2.25 + w
    case .landscapeLeft: return u > 2.25 - w || u < -2.25 + w
    default: return false
    }
  }
}

/// An orientation change, as an app would be notified of it.
public struct OrientationEvent: Equatable, Sendable {
  public var t: Double
  public var from: DeviceOrientation
  public var to: DeviceOrientation
}

/// Turns per-sample classes into change notifications: a new orientation is announced once it has
/// held (with hysteresis in its favour of the current one) for `settle` seconds; nothing is
/// announced while the device accelerates (an `unknown` sample restarts the wait).
public struct OrientationAnnouncer: Sendable {
  public let classifier: OrientationClassifier
  public let settle: Double
  public private(set) var current: DeviceOrientation = .unknown
  private var candidate: DeviceOrientation?
  private var candidateSince = 0.0

  public static let defaultSettle = 0.3

  public init(classifier: OrientationClassifier, settle: Double = defaultSettle) {
    self.classifier = classifier
    self.settle = settle
  }

  /// Feeds one sample; returns the event it completes, if any.
  public mutating func add(t: Double, gravity: (Double, Double, Double), magnitude: Double)
    -> OrientationEvent?
  {
    let cls = classifier.classify(
      gravity: gravity, magnitude: magnitude, current: current == .unknown ? nil : current)
    if cls == .unknown || cls == current {
      candidate = nil
      return nil
    }
    if candidate != cls {
      candidate = cls
      candidateSince = t
    }
    guard t - candidateSince >= settle else { return nil }
    let event = OrientationEvent(t: t, from: current, to: cls)
    current = cls
    candidate = nil
    return event
  }
}
