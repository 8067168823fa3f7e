import AccelCore
import AccelEvaluation
import TestSupport
import Testing

/// Annotation importers (ELAN, Label Studio, Audacity, mapped CSV) and their round trips.
@Suite struct AnnotationFormatTests {
  func file(_ text: String, _ name: String = "labels") -> String {
    let path = Paths.temporaryDirectory() + "/" + name
    writeFile(path, text)
    return path
  }

  func read(_ text: String, _ options: AnnotationReadOptions = .init(), trace: String? = nil) throws
    -> [LabeledInterval]
  {
    try EventsFile.read(path: file(text), options: options, trace: trace)
  }

  let sample = [
    LabeledInterval(start: 1.5, end: 2.625, label: "shake"),
    LabeledInterval(start: 65, end: 65, label: "tap"),
    LabeledInterval(start: 3723.001, end: 3725.5, label: "shake, hard"),
  ]

  @Test func everyFormatRoundTrips() throws {
    for format in AnnotationFormat.allCases where format != .auto {
      let text = EventsFile.render(sample, as: format, trace: "walk.csv")
      #expect(EventsFile.detect(Array(text.utf8)) == format, "\(format)")
      let back = try read(text)
      if format == .labelStudio {
        // Label Studio results come back in time order.
        #expect(back == sample.sorted { $0.start < $1.start }, "\(format)")
      } else {
        #expect(back == sample, "\(format)")
      }
      // Converting through every other format and back changes nothing.
      for other in AnnotationFormat.allCases where other != .auto {
        let again = try read(EventsFile.render(back, as: other, trace: "walk.csv"))
        #expect(
          Set(again.map { "\($0.start) \($0.end) \($0.label)" })
            == Set(sample.map { "\($0.start) \($0.end) \($0.label)" }), "\(format) -> \(other)")
      }
    }
  }

  @Test func elanExportsInTheirLayouts() throws {
    let expected = [
      LabeledInterval(start: 1.5, end: 2.6, label: "shake"),
      LabeledInterval(start: 3661.25, end: 3662, label: "gesture"),
    ]
    // Tier, empty participant, hh:mm:ss.ms and ss.msec for begin, end and duration; an empty annotation takes the tier's name.
    let full = """
      gesture\t\t00:00:01.500\t1.500\t00:00:02.600\t2.600\t00:00:01.100\t1.100\tshake
      gesture\t\t01:01:01.250\t3661.250\t01:01:02.000\t3662.000\t00:00:00.750\t0.750\t

      """
    #expect(try read(full) == expected)
    // Milliseconds only, no tier; hh:mm:ss.ms with frames beside it; begin and end only.
    #expect(try read("1500\t2600\t1100\tshake\n3661250\t3662000\t750\tgesture\n") == expected)
    #expect(
      try read(
        "g\t00:00:01.500\t00:00:01:12\t00:00:02.600\t00:00:02:15\tshake\ng\t01:01:01.250\t01:01:01:06\t01:01:02.000\t01:01:02:00\tgesture\n"
      )
        == expected)
    #expect(try read("g\t1.500\t2.600\tshake\ng\t3661.250\t3662.000\tgesture\n") == expected)
    // A header line is skipped.
    #expect(
      try read("Tier\tBegin Time - ss.msec\tEnd Time - ss.msec\tAnnotation\ng\t1.500\t2.600\tshake\n") == [
        expected[0]
      ])
    // Times that disagree, and an end before the begin, are errors with the line.
    let disagree = #expect(throws: AccelError.self) {
      try read(
        "g\t1.500\t2.600\t00:00:05.000\t5.000\tshake\ng\t1.500\t2.500\t00:00:03.000\t3.000\tshake\n",
        .init(format: .elan))
    }
    #expect(disagree?.message.contains(":1:") == true || disagree?.message.contains("cannot tell") == true)
    let backwards = #expect(throws: AccelError.self) {
      try read("g\t2.600\t1.500\tshake\n", .init(format: .elan))
    }
    #expect(backwards?.exitCode == 65)
  }

  @Test func labelStudioExports() throws {
    let full = """
      [{"id": 7, "data": {"csv": "/data/upload/1/ab12cd-walk.csv"},
        "annotations": [{"id": 1, "was_cancelled": true, "result": [{"value": {"start": 9, "end": 10, "timeserieslabels": ["wrong"]}}]},
                        {"id": 2, "result": [
          {"value": {"start": 4.5, "end": 6, "instant": false, "timeserieslabels": ["shake", "vigorous"]}, "type": "timeserieslabels"},
          {"value": {"start": 1.25, "instant": true, "timeserieslabels": ["tap"]}, "type": "timeserieslabels"},
          {"value": {"choices": ["good"]}, "type": "choices"}]}]},
       {"id": 8, "data": {"csv": "/data/upload/1/ef-run.csv"}, "annotations": [],
        "predictions": [{"result": [{"value": {"start": "3", "end": "4.5", "timeserieslabels": ["shake"]}}]}]}]
      """
    let walk = [
      LabeledInterval(start: 1.25, end: 1.25, label: "tap"),
      LabeledInterval(start: 4.5, end: 6, label: "shake"),
      LabeledInterval(start: 4.5, end: 6, label: "vigorous"),
    ]
    #expect(try read(full, trace: "data/walk.csv") == walk)
    #expect(try read(full, .init(task: "8")) == [LabeledInterval(start: 3, end: 4.5, label: "shake")])
    let path = file(full, "export.json")
    #expect(try EventsFile.read(path: path + "#7", options: .init()) == walk)
    let ambiguous = #expect(throws: AccelError.self) {
      try EventsFile.read(path: path, options: .init(), trace: "other.csv")
    }
    #expect(ambiguous?.message.contains("2 tasks") == true && ambiguous?.hint?.contains("7, 8") == true)
    // JSON-MIN: the label lists sit on the task.
    let minimal =
      #"[{"csv": "x.csv", "id": 3, "label": [{"start": 0.5, "end": 1, "instant": false, "timeserieslabels": ["shake"]}]}]"#
    #expect(try read(minimal) == [LabeledInterval(start: 0.5, end: 1, label: "shake")])
    // Datetime strings are refused with the reason.
    let dated =
      #"[{"id": 1, "annotations": [{"result": [{"value": {"start": "2026-11-21 10:00:00", "end": "2026-11-21 10:00:01", "timeserieslabels": ["shake"]}}]}]}]"#
    let refused = #expect(throws: AccelError.self) { try read(dated) }
    #expect(refused?.hint?.contains("seconds") == true)
    // Errors name the value at fault: the first kept annotation's second result's start, the
    // second task's prediction's end, a JSON-MIN item's end.
    let late = full.replacingOccurrences(of: #""start": 1.25"#, with: #""start": "soon""#)
    let lateError = #expect(throws: AccelError.self) { try read(late, .init(task: "7")) }
    #expect(lateError?.message.contains(":5:25: result 2: start is not a time") == true, "\(lateError!)")
    let backwards = full.replacingOccurrences(of: #""end": "4.5""#, with: #""end": "2""#)
    let backwardsError = #expect(throws: AccelError.self) { try read(backwards, .init(task: "8")) }
    #expect(backwardsError?.message.contains(":8:63: result 1 ends (2 s)") == true, "\(backwardsError!)")
    let minimalBackwards = minimal.replacingOccurrences(of: #""end": 1"#, with: #""end": 0.25"#)
    let minimalError = #expect(throws: AccelError.self) { try read(minimalBackwards) }
    #expect(minimalError?.message.contains(":1:60: result 1 ends") == true, "\(minimalError!)")
    let broken = #expect(throws: AccelError.self) { try read("[{\"id\": 1,\n  \"data\": }]") }
    #expect(broken?.message.contains(":2:11: invalid JSON") == true)
  }

  @Test func mappedCSVColumnsAndUnits() throws {
    let text = "onset_ms;dur_ms;class;notes\n1500;1100;shake;x\n65000;0;tap;y\n"
    let columns = try AnnotationColumns(parsing: "start=onset_ms,duration=dur_ms,label=class,unit=ms")
    #expect(
      try read(text, .init(columns: columns)) == [
        LabeledInterval(start: 1.5, end: 2.6, label: "shake"),
        LabeledInterval(start: 65, end: 65, label: "tap"),
      ])
    let constant = try AnnotationColumns(parsing: "start=onset_ms,duration=dur_ms,value=shake,unit=ms")
    #expect(try read(text, .init(columns: constant)).map(\.label) == ["shake", "shake"])
    let missing = try AnnotationColumns(parsing: "start=begin,end=stop,label=class")
    let error = #expect(throws: AccelError.self) { try read(text, .init(columns: missing)) }
    #expect(error?.message.contains("no such column") == true && error?.message.contains(":1") == true)
    for bad in [
      "start=a", "start=a,end=b,duration=c,label=d", "start=a,end=b,label=c,unit=fortnights",
      "start=a,end=b,label=c,start=d", "begin=a",
    ] {
      #expect(throws: AccelError.self, "\(bad)") { _ = try AnnotationColumns(parsing: bad) }
    }
  }

  /// A document names where its values are: members by name (the first when repeated), items by
  /// index, and for a path that is absent the deepest value present on it.
  @Test func jsonDocumentLocations() throws {
    let text = "{\"a\": [1, {\"b\": \"x\\\"]\"},\n  [] ], \"a\": 2,\n \"c\": {\"d\": null, \"é\": true}}"
    let document = try JSONDocument(Array(text.utf8), file: "t.json")
    func at(_ path: String...) -> String { document.location(path).description }
    #expect(at() == "t.json:1:1")
    #expect(at("a") == "t.json:1:7" && document[["a"]]?.array?.count == 3)
    #expect(at("a", "1", "b") == "t.json:1:17" && document[["a", "1", "b"]] == .string("x\"]"))
    #expect(at("a", "2") == "t.json:2:3")
    #expect(at("a", "2", "0") == "t.json:2:3" && document[["a", "2", "0"]] == nil)
    #expect(at("a", "3") == "t.json:1:7" && at("a", "x") == "t.json:1:7")
    #expect(at("c", "é") == "t.json:3:24" && at("c", "d") == "t.json:3:13")
    #expect(at("c", "e") == "t.json:3:7" && at("z") == "t.json:1:1")
    #expect(at("a", "0", "q") == "t.json:1:8")
  }

  @Test func jsonParserEdges() throws {
    let value = try JSONValue.parse(
      Array(#"{"a": [1, -2.5e3, true, null, "x\u00e9\ud83d\ude00\n"], "b": {}}"#.utf8), file: "t")
    #expect(value["a"]?.array?[1].number == -2500)
    #expect(value["a"]?.array?[4].string == "x\u{e9}\u{1F600}\n")
    for bad in [
      "", "[1,]", "{\"a\" 1}", "01", "[\"\u{1}\"]", "tru", "[1] 2", String(repeating: "[", count: 600),
    ] {
      #expect(throws: AccelError.self, "\(bad.prefix(10))") {
        _ = try JSONValue.parse(Array(bad.utf8), file: "t")
      }
    }
  }
}
