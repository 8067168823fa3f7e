import AccelCore
import TestSupport
import Testing

@testable import AccelIO

@Suite struct CSVReaderTests {
  let expected = SampleBlock(t: [0, 0.01], x: [0.5, -1], y: [0.25, 2], z: [-1, 0.125])

  @Test(arguments: [
    "t,x,y,z\n0,0.5,0.25,-1\n0.01,-1,2,0.125\n",
    "t\tx\ty\tz\n0\t0.5\t0.25\t-1\n0.01\t-1\t2\t0.125\n",
    "t;x;y;z\n0;0.5;0.25;-1\n0.01;-1;2;0.125\n",
    "t,x,y,z\r\n0,0.5,0.25,-1\r\n0.01,-1,2,0.125\r\n",
    "\u{FEFF}t,x,y,z\n0,0.5,0.25,-1\n0.01,-1,2,0.125",
    "T , X , Y , Z \n 0 , 0.5 , 0.25 , -1 \n 0.01 , -1 , 2 , 0.125 \n",
    "t,x,y,z,\n0,0.5,0.25,-1,\n0.01,-1,2,0.125,\n",
    "t\tx\ty\tz\t\n0\t0.5\t0.25\t-1\t\n0.01\t-1\t2\t0.125\t\n",
    "\"t\",\"x\",\"y\",\"z\"\n\"0\",\"0.5\",\"0.25\",\"-1\"\n0.01,-1,2,0.125\n",
    "\n\nt,x,y,z\n\n0,0.5,0.25,-1\n\n\n0.01,-1,2,0.125\n\n",
    "time,note,ax,ay,az\n0,\"a, \"\"quoted\"\"\nnote\",0.5,0.25,-1\n0.01,plain,-1,2,0.125\n",
  ])
  func readsEverySyntax(_ text: String) throws {
    #expect(try readCSV(text) == expected)
  }

  @Test func everySyntaxReadsTheSameWithTinyBuffersAndBlocks() throws {
    let text = "t,note,x,y,z\r\n" + (0..<300).map { i in
      "\(Double(i) / 100),\"n\(i),\"\"q\"\"\nline\",\(Double(i) * 0.001),-\(i).25,\(i % 7)e-1\r\n"
    }.joined()
    let whole = try readCSV(text)
    #expect(whole.count == 300)
    var rng = SeededRandom(seed: 3)
    for _ in 0..<20 {
      var settings = TraceReadSettings()
      settings.blockSize = Int.random(in: 1...50, using: &rng)
      settings.readBufferSize = Int.random(in: 16...200, using: &rng)
      let (source, _) = try TraceOpener.open(path: temporaryFile("t.csv", text), settings: settings)
      var chunked = SampleBlock()
      while let block = try source.next() {
        #expect(block.count <= settings.blockSize)
        chunked.append(contentsOf: block)
      }
      #expect(chunked == whole)
    }
  }

  @Test func delimiterOptionOverridesDetection() throws {
    var settings = TraceReadSettings()
    settings.delimiter = UInt8(ascii: ";")
    settings.columns = try ColumnSpec(parsing: "t=1,x=2,y=3,z=4")
    let block = try readCSV("a;b,c;d;e\n1;2;3;4\n", settings)
    #expect(block == SampleBlock(t: [1], x: [2], y: [3], z: [4]))
  }

  @Test func noHeaderUsesPositionsAndRate() throws {
    var settings = TraceReadSettings()
    settings.hasHeader = false
    settings.rate = 4
    let block = try readCSV("1,2,3\n4,5,6\n7,8,9\n", settings)
    #expect(block == SampleBlock(t: [0, 0.25, 0.5], x: [1, 4, 7], y: [2, 5, 8], z: [3, 6, 9]))
    settings.rate = nil
    let four = try readCSV("0,1,2,3\n1,4,5,6\n", settings)
    #expect(four == SampleBlock(t: [0, 1], x: [1, 4], y: [2, 5], z: [3, 6]))
  }

  @Test func columnsByNameIndexAndSum() throws {
    var settings = TraceReadSettings()
    settings.columns = try ColumnSpec(parsing: "t=Time,x=gx+ux,y=3,z=AZ")
    let block = try readCSV("time,gx,ay,az,ux\n1,0.5,2,3,0.25\n", settings)
    #expect(block == SampleBlock(t: [1], x: [0.75], y: [2], z: [3]))
  }

  @Test func unitsTimeUnitsAndConventionConvertOnTheWayIn() throws {
    var settings = TraceReadSettings()
    settings.timeUnit = .ms
    settings.units = .fixed(.metersPerSecondSquared)
    settings.convention = .specificForce
    let block = try readCSV("t,x,y,z\n10,9.80665,0,-19.6133\n", settings)
    #expect(block == SampleBlock(t: [0.01], x: [-1], y: [-0.0], z: [2]))
  }

  @Test func unitsAreReadFromColumnNames() throws {
    let mg = try readCSV("A_X [mg]\tA_Y [mg]\tA_Z [mg]\t\n1000\t-500\t25\t\n", TraceReadSettings().with { $0.rate = 30 })
    #expect(mg == SampleBlock(t: [0], x: [1], y: [-0.5], z: [0.025]))
    let phyphox = try readCSV(
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n0,9.80665,0,0\n",
      TraceReadSettings().with { $0.columns = try? ColumnSpec(parsing: Preset.named("phyphox")!.columns!) })
    #expect(phyphox.x == [1])
  }

  @Test func nonFiniteValuesAreRefusedUnlessAllowed() throws {
    let path = temporaryFile("walk.csv", "t,x,y,z\n0,1,2,nan\n")
    #expect(
      message(accelError { _ = try readTrace(path) }, in: path)
        == "Error: walk.csv:2:4: column \"z\" holds \"nan\", which is not a finite number\n"
        + "Hint: pass --allow-nonfinite to keep NaN and infinite values, or --skip-bad-rows to drop the row")
    var settings = TraceReadSettings()
    settings.allowNonFinite = true
    let block = try readTrace(path, settings).0
    #expect(block.z[0].isNaN)
    let empty = try readCSV("t,x,y,z\n0,1,,3\n", settings)
    #expect(empty.y[0].isNaN)
  }

  @Test func skipBadRowsCountsAndKeepsTheRest() throws {
    var settings = TraceReadSettings()
    settings.skipBadRows = true
    let path = temporaryFile("walk.csv", "t,x,y,z\n0,1,2,3\n1,n/a,2,3\n2,1,2\n3,4,5,6\n")
    let (block, source) = try readTrace(path, settings)
    #expect(block == SampleBlock(t: [0, 3], x: [1, 4], y: [2, 5], z: [3, 6]))
    let reporter = try #require(source as? SkipReporting)
    #expect(reporter.skippedRows == 2)
    #expect(reporter.firstSkippedError?.message.hasSuffix("walk.csv:3:2: expected a number in column \"x\", got \"n/a\"") == true)
  }

  // MARK: - Errors, with their exact messages

  func failure(_ text: String, name: String = "walk.csv", _ settings: TraceReadSettings = TraceReadSettings()) -> (String?, Int32?) {
    let path = temporaryFile(name, text)
    let error = accelError { _ = try readTrace(path, settings) }
    return (message(error, in: path), error?.exitCode)
  }

  @Test func notANumber() {
    let (text, code) = failure("t,x,y,z\n0,1,2,3\n0.01,1,2,n/a\n")
    #expect(text == "Error: walk.csv:3:4: expected a number in column \"z\", got \"n/a\"\n"
      + "Hint: fix or remove the row, or pass --skip-bad-rows to skip rows that do not parse")
    #expect(code == 65)
  }

  @Test func missingField() {
    let (text, code) = failure("t,x,y,z\n0,1,2,3\n0.01,1,2\n")
    #expect(text == "Error: walk.csv:3:4: missing field for column \"z\": the row has only 3 fields")
    #expect(code == 65)
  }

  /// A row with more fields than the header is an error where the first unnamed field is (not
  /// silently cut); trailing delimiters (empty fields) are not; --skip-bad-rows counts such rows.
  @Test func moreFieldsThanTheHeader() throws {
    let (text, code) = failure("t,x,y,z\n0,1,2,3\n0.01,1,2,3,4\n")
    #expect(text == "Error: walk.csv:3:5: the row has 5 fields, the header 4: column 5 has no name\n"
      + "Hint: fix the row (a stray delimiter?), or pass --skip-bad-rows to skip such rows")
    #expect(code == 65)
    let quoted = failure("t,x,y,z\n0,1,2,3,\"a\"\n").0
    #expect(quoted?.hasPrefix("Error: walk.csv:2:5: the row has 5 fields") == true)
    let trailing = try readCSV("t,x,y,z\n0,1,2,3,\n1,4,5,6, \r\n")
    #expect(trailing == SampleBlock(t: [0, 1], x: [1, 4], y: [2, 5], z: [3, 6]))
    var settings = TraceReadSettings()
    settings.skipBadRows = true
    let (block, source) = try readTrace(temporaryFile("walk.csv", "t,x,y,z\n0,1,2,3\n1,1,2,3,9\n2,4,5,6\n"), settings)
    #expect(block.t == [0, 2])
    #expect((source as? SkipReporting)?.skippedRows == 1)
  }

  @Test func emptyField() {
    let (text, _) = failure("t,x,y,z\n0,1,,3\n")
    #expect(text == "Error: walk.csv:2:3: expected a number in column \"y\", got an empty field\n"
      + "Hint: fill in the value, or pass --skip-bad-rows to skip rows that do not parse "
      + "(--allow-nonfinite reads empty fields as NaN)")
  }

  @Test func emptyFile() {
    #expect(failure("").0 == "Error: walk.csv: the file is empty: no header and no rows\n"
      + "Hint: check the path; accelkit needs a header line and at least one row")
    #expect(failure("\n\n  \n").1 == 65)
  }

  @Test func onlyAHeader() {
    let (text, code) = failure("t,x,y,z\n")
    #expect(text == "Error: walk.csv:2: the file has a header but no rows\nHint: a trace needs at least one sample")
    #expect(code == 65)
  }

  @Test func unknownColumnName() throws {
    var settings = TraceReadSettings()
    settings.columns = try ColumnSpec(parsing: "x=ax,y=ay,z=acc_z")
    let (text, code) = failure("t,ax,ay,az\n0,1,2,3\n", settings)
    #expect(text == "Error: walk.csv:1: no column named \"acc_z\" (for z) in the header\n"
      + "Hint: the columns are \"t\", \"ax\", \"ay\", \"az\"; use --columns with one of them")
    #expect(code == 65)
  }

  @Test func headerWithoutTheNeededColumns() {
    let (text, _) = failure("time,a,b,c\n0,1,2,3\n")
    #expect(text == "Error: walk.csv:1: no column for x, y, z in the header \"time\", \"a\", \"b\", \"c\"\n"
      + "Hint: map them with --columns x=NAME,y=NAME,z=NAME or pick a --preset (see `accelkit presets`)")
  }

  @Test func headerThatLooksLikeData() {
    let (text, _) = failure("0,1,2,3\n1,2,3,4\n")
    #expect(text == "Error: walk.csv:1: the first line looks like data, not a header: \"0\", \"1\", \"2\", \"3\"\n"
      + "Hint: pass --no-header (and --rate HZ if there is no time column), or a --preset")
  }

  @Test func noTimeColumnAndNoRate() {
    let (text, code) = failure("x,y,z\n1,2,3\n")
    #expect(text == "Error: walk.csv has no time column; give the sample rate with --rate HZ\n"
      + "Hint: or map a time column with --columns t=NAME (and --time-unit if it is not seconds)")
    #expect(code == 64)
  }

  @Test func unclosedQuote() {
    let (text, code) = failure("t,x,y,z\n0,1,2,\"3\n")
    #expect(text == "Error: walk.csv:2:4: a quoted field is not closed before the end of the file\n"
      + "Hint: check the quotes on this row")
    #expect(code == 65)
  }

  @Test func nonexistentFile() {
    let error = accelError { _ = try readTrace("/nonexistent/walk.csv") }
    #expect(error == .cannotOpen(path: "/nonexistent/walk.csv", reason: "No such file or directory"))
    #expect(error?.exitCode == 66)
  }

  @Test func badColumnSpecIsAUsageError() {
    #expect(accelError { _ = try ColumnSpec(parsing: "q=1") }?.exitCode == 64)
    #expect(accelError { _ = try ColumnSpec(parsing: "x") }?.exitCode == 64)
    #expect(accelError { _ = try ColumnSpec(parsing: "x=0") }?.exitCode == 64)
  }
}

extension TraceReadSettings {
  func with(_ change: (inout TraceReadSettings) -> Void) -> TraceReadSettings {
    var copy = self
    change(&copy)
    return copy
  }
}
