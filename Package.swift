// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "accelkit",
  products: [
    .executable(name: "accelkit", targets: ["AccelKitCLI"]),
    // The readers under libFuzzer: scripts/fuzz builds it with -sanitize=fuzzer,address.
    .executable(name: "accelkit-fuzz", targets: ["AccelFuzz"]),
    .library(
      name: "AccelKit",
      targets: [
        "AccelCore", "AccelIO", "AccelFilters", "AccelGestures", "AccelExport", "AccelEvaluation",
        "AccelScaleOut", "AccelTuning", "AccelOrientation", "AccelSpectral", "AccelSynthesis",
        "AccelSimulation", "AccelPlot", "AccelLearning",
        "AccelTraining",
      ]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
  ],
  targets: [
    // libfftw3 through pkg-config; imported by AccelSpectral only.
    .systemLibrary(
      name: "CFFTW",
      pkgConfig: "fftw3",
      providers: [.apt(["libfftw3-dev", "pkg-config"])]
    ),
    // zlib, for gzip-compressed input; imported by AccelIO only.
    .systemLibrary(
      name: "CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]
    ),
    // XGBoost's C API (Debian's libxgboost-dev), for training; imported by AccelTraining only.
    .systemLibrary(
      name: "CXGBoost",
      pkgConfig: "xgboost",
      providers: [.apt(["libxgboost-dev"])]
    ),
    // SHA-256's compression on the processor's SHA instructions, where it has them.
    .target(name: "CSHA256"),
    .target(name: "AccelCore", dependencies: ["CSHA256"]),
    .target(name: "AccelIO", dependencies: ["AccelCore", "CZlib"]),
    .target(name: "AccelFilters", dependencies: ["AccelCore"]),
    .target(name: "AccelOrientation", dependencies: ["AccelCore", "AccelFilters"]),
    .target(name: "CAccelKernels"),
    .target(name: "AccelLearning", dependencies: ["AccelCore", "AccelIO", "AccelSpectral", "CAccelKernels"]),
    .target(
      name: "AccelGestures", dependencies: ["AccelCore", "AccelFilters", "AccelOrientation", "AccelLearning"]),
    // The detectors as single-header C99 libraries (accelkit export) and what they cost a device.
    .target(
      name: "AccelExport", dependencies: ["AccelCore", "AccelGestures", "AccelLearning", "AccelOrientation"]),
    .target(
      name: "AccelTraining",
      dependencies: [
        "AccelCore", "AccelIO", "AccelLearning", "AccelGestures", "AccelExport", "AccelEvaluation",
        "AccelTuning",
        "AccelPlot", "CXGBoost",
      ]
    ),
    .target(name: "AccelEvaluation", dependencies: ["AccelCore", "AccelIO", "AccelGestures", "AccelPlot"]),
    .target(
      name: "AccelScaleOut", dependencies: ["AccelCore", "AccelIO", "AccelGestures", "AccelEvaluation"]),
    .target(
      name: "AccelTuning",
      dependencies: [
        "AccelCore", "AccelIO", "AccelGestures", "AccelPlot", "AccelEvaluation", "AccelScaleOut",
      ]),
    .target(name: "AccelSynthesis", dependencies: ["AccelCore"]),
    .target(name: "AccelSimulation", dependencies: ["AccelCore"]),
    .target(name: "AccelPlot", dependencies: ["AccelCore"]),
    .target(
      name: "AccelSpectral",
      dependencies: ["AccelCore", "CFFTW"],
      linkerSettings: [.linkedLibrary("m")]
    ),
    .executableTarget(
      name: "AccelKitCLI",
      dependencies: [
        "AccelCore", "AccelIO", "AccelFilters", "AccelGestures", "AccelExport", "AccelEvaluation",
        "AccelScaleOut", "AccelTuning", "AccelOrientation", "AccelSpectral", "AccelSynthesis",
        "AccelSimulation", "AccelPlot", "AccelLearning",
        "AccelTraining", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      linkerSettings: [.linkedLibrary("m")],
      plugins: ["BuildInfo"]
    ),
    // Records the commit for `accelkit --version`.
    .plugin(name: "BuildInfo", capability: .buildTool()),
    // The README's library example, built and run by a test.
    .executableTarget(
      name: "LibraryExample",
      dependencies: ["AccelCore", "AccelIO", "AccelFilters", "AccelGestures"],
      path: "Examples/LibraryExample"
    ),
    // The fuzz entry point alone (libFuzzer supplies main), and a weak main for plain builds.
    .target(name: "AccelFuzzMain"),
    .executableTarget(
      name: "AccelFuzz", dependencies: ["AccelCore", "AccelIO", "AccelEvaluation", "AccelFuzzMain"]),
    .target(name: "TestSupport", dependencies: ["AccelCore"], path: "Tests/TestSupport"),
    .testTarget(name: "AccelCoreTests", dependencies: ["AccelCore", "TestSupport"]),
    .testTarget(name: "AccelIOTests", dependencies: ["AccelIO", "TestSupport"]),
    .testTarget(name: "AccelFiltersTests", dependencies: ["AccelFilters", "TestSupport"]),
    .testTarget(name: "AccelGesturesTests", dependencies: ["AccelGestures", "AccelIO", "TestSupport"]),
    .testTarget(name: "AccelEvaluationTests", dependencies: ["AccelEvaluation", "TestSupport"]),
    .testTarget(
      name: "AccelTuningTests",
      dependencies: ["AccelTuning", "AccelEvaluation", "AccelGestures", "TestSupport"]),
    .testTarget(name: "AccelPlotTests", dependencies: ["AccelPlot", "AccelCore"]),
    .testTarget(name: "AccelSynthesisTests", dependencies: ["AccelSynthesis", "AccelCore"]),
    .testTarget(name: "AccelSimulationTests", dependencies: ["AccelSimulation", "AccelCore"]),
    .testTarget(name: "AccelOrientationTests", dependencies: ["AccelOrientation", "AccelIO", "TestSupport"]),
    .testTarget(name: "AccelSpectralTests", dependencies: ["AccelSpectral", "TestSupport"]),
    .testTarget(
      name: "AccelLearningTests",
      dependencies: ["AccelLearning", "AccelCore", "AccelSpectral", "TestSupport"]),
    .testTarget(
      name: "AccelTrainingTests",
      dependencies: [
        "AccelTraining", "AccelLearning", "AccelGestures", "AccelEvaluation", "AccelTuning", "AccelCore",
        "AccelExport", "CXGBoost",
        "TestSupport",
      ]
    ),
    .testTarget(
      name: "AccelKitCLITests",
      dependencies: [
        "AccelKitCLI", "LibraryExample", "AccelCore", "AccelIO", "AccelFilters", "AccelGestures",
        "AccelExport",
        "AccelEvaluation", "AccelScaleOut", "AccelTuning", "AccelLearning",
        "TestSupport",
      ]
    ),
  ]
)
