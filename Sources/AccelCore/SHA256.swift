import CSHA256

/// SHA-256 (FIPS 180-4), streaming: `update` with any number of byte runs, then `hexDigest`.
public struct SHA256: Sendable {
  private var state: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
  ]
  private var pending: [UInt8] = []
  private var length: UInt64 = 0

  /// Whether the processor's SHA instructions compress the blocks (five times faster than the
  /// portable compression below, which gives the same digests).
  static let hardwareAvailable = ak_sha256_hardware() == 1
  var usesHardware = SHA256.hardwareAvailable

  public init() { pending.reserveCapacity(64) }

  private static let k = Array(UnsafeBufferPointer(start: ak_sha256_round_constants(), count: 64))

  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    length &+= UInt64(bytes.count)
    var i = 0
    if !pending.isEmpty {
      let take = min(64 - pending.count, bytes.count)
      pending.append(contentsOf: bytes[0..<take])
      i = take
      guard pending.count == 64 else { return }
      pending.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
      pending.removeAll(keepingCapacity: true)
    }
    let blocks = (bytes.count - i) / 64
    if blocks > 0 {
      compress(bytes.baseAddress! + i, blocks: blocks)
      i += 64 * blocks
    }
    if i < bytes.count { pending.append(contentsOf: bytes[i...]) }
  }

  public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
    let array = Array(bytes)
    array.withUnsafeBytes { update($0) }
  }

  /// The digest as 64 lowercase hex digits (the hasher is finished; do not update it again).
  public mutating func hexDigest() -> String {
    let bits = length &* 8
    var tail: [UInt8] = [0x80]
    while (pending.count + tail.count) % 64 != 56 { tail.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    let saved = length
    tail.withUnsafeBytes { update($0) }
    length = saved
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for word in state {
      for shift in stride(from: 28, through: 0, by: -4) {
        out.append(digits[Int((word >> UInt32(shift)) & 0xF)])
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
    if usesHardware {
      state.withUnsafeMutableBufferPointer {
        ak_sha256_blocks($0.baseAddress!, data.assumingMemoryBound(to: UInt8.self), blocks)
      }
    } else {
      for b in 0..<blocks { compress(data + 64 * b) }
    }
  }

  private mutating func compress(_ block: UnsafeRawPointer) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
      Self.k.withUnsafeBufferPointer { k in
        for t in 0..<16 {
          let p = block + 4 * t
          w[t] =
            UInt32(p.load(as: UInt8.self)) << 24 | UInt32((p + 1).load(as: UInt8.self)) << 16
            | UInt32((p + 2).load(as: UInt8.self)) << 8 | UInt32((p + 3).load(as: UInt8.self))
        }
        for t in 16..<64 {
          let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
          let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
          w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = state[0]
        var b = state[1]
        var c = state[2]
        var d = state[3]
        var e = state[4]
        var f = state[5]
        var g = state[6]
        var h = state[7]
        for t in 0..<64 {
          let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
          let ch = (e & f) ^ (~e & g)
          let t1 = h &+ s1 &+ ch &+ k[t] &+ w[t]
          let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
          let maj = (a & b) ^ (a & c) ^ (b & c)
          let t2 = s0 &+ maj
          h = g
          g = f
          f = e
          e = d &+ t1
          d = c
          c = b
          b = a
          a = t1 &+ t2
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
      }
    }
  }

  @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}
