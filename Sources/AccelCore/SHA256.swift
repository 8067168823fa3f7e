/// SHA-256 (FIPS 180-4), streaming: `update` with any number of byte runs, then `hexDigest`.
public struct SHA256: Sendable {
  private var state: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
  ]
  private var pending: [UInt8] = []
  private var length: UInt64 = 0

  public init() { pending.reserveCapacity(64) }

  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    length &+= UInt64(bytes.count)
    var i = 0
    if !pending.isEmpty {
      let take = min(64 - pending.count, bytes.count)
      pending.append(contentsOf: bytes[0..<take])
      i = take
      guard pending.count == 64 else { return }
      pending.withUnsafeBytes { compress($0.baseAddress!) }
      pending.removeAll(keepingCapacity: true)
    }
    while bytes.count - i >= 64 {
      compress(bytes.baseAddress! + i)
      i += 64
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
