import Foundation
import TestSupport
import Testing

@Suite struct SimulateCLITests {
  @Test func ballAndSlideWithSVG() throws {
    var text = "t,x,y,z\n"
    for i in 0..<200 { text += "\(Double(i) / 100),0.5,-0.2,-0.8\n" }
    let trace = temporaryCSV(text)
    let dir = Paths.temporaryDirectory()
    let ball = try accelkit(["simulate", "ball", trace, "-o", dir + "/ball.csv", "--svg", dir + "/ball.svg"])
    #expect(ball.status == 0)
    let csv = String(decoding: readFile(dir + "/ball.csv")!, as: UTF8.self)
    #expect(csv.hasPrefix("t,x,y,vx,vy,bounce\n0,160.5,230.2,0.5,0.2,0\n"))
    #expect(csv.contains(",1\n"))  // it reaches a wall
    let svg = String(decoding: readFile(dir + "/ball.svg")!, as: UTF8.self)
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"320\" height=\"460\""))
    #expect(svg.contains("<polyline") && svg.contains("fill=\"#d62728\"") && svg.hasSuffix("</svg>\n"))
    let slide = try accelkit(["simulate", "slide", "--view", "200x300", trace, "-o", "-"])
    #expect(slide.status == 0 && slide.stdout.hasPrefix("t,x,y,vx,vy,angle\n0,100,150,"))
    #expect(try accelkit(["simulate", "ball", "--view", "big", trace]).status == 64)
    for view in ["infxinf", "1e300x10", "0x10"] {  // sizes from the command line are bounded
      #expect(try accelkit(["simulate", "ball", "--view", view, trace, "-o", "/dev/null"]).status == 64, "\(view)")
    }
  }
}
