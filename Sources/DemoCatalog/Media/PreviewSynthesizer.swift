import Foundation
import Synchronization

/// Makes a track's preview: a distinct little melody, as a 16-bit mono WAV file.
///
/// Deterministic: the same track id and content version always give the same bytes, so a
/// download can be checked against the source byte for byte.
public struct PreviewSynthesizer: Sendable {
    /// Samples per second.
    public var sampleRate: Int
    /// Length of a preview.
    public var seconds: Int

    /// Creates a synthesizer; the defaults give 30 s at 22.05 kHz, about 1.3 MB per preview.
    public init(sampleRate: Int = 22_050, seconds: Int = 30) {
        self.sampleRate = sampleRate
        self.seconds = seconds
    }

    /// The size of every preview this synthesizer makes, in bytes.
    public var byteCount: Int { 44 + sampleRate * seconds * 2 }

    /// The WAV bytes of the preview for `trackId`; `version` changes the melody (the "content
    /// changed on the server" case).
    ///
    /// Made once per process (the last ``keptPreviews`` kept): every catalog of a process asks
    /// for the same bytes — a test suite starts hundreds — and each costs over a million sines,
    /// computed on a thread of its own so as not to hold one of the few threads every task shares.
    /// Callers asking while it is being made wait for that making.
    public func preview(trackId: Int, version: Int = 0) async -> Data {
        let key = MadeKey(sampleRate: sampleRate, seconds: seconds, trackId: trackId, version: version)
        let making = Self.made.withLock { made in
            if let making = made[key] { return making }
            if made.count >= Self.keptPreviews { made.removeAll(keepingCapacity: true) }
            let making = Task {
                await withCheckedContinuation { (made: CheckedContinuation<Data, Never>) in
                    Thread { made.resume(returning: synthesize(trackId: trackId, version: version)) }.start()
                }
            }
            made[key] = making
            return making
        }
        return await making.value
    }

    /// How many previews a process keeps made (about 1.3 MB each with the defaults).
    public static let keptPreviews = 64

    private struct MadeKey: Hashable {
        var sampleRate, seconds, trackId, version: Int
    }

    /// The previews made or being made, by what makes them.
    private static let made = Mutex<[MadeKey: Task<Data, Never>]>([:])

    private func synthesize(trackId: Int, version: Int) -> Data {
        let sampleCount = sampleRate * seconds
        var data = Data(capacity: 44 + sampleCount * 2)
        data.append(wavHeader(sampleCount: sampleCount))
        var random = SplitMix(seed: UInt64(trackId) &* 0x9E37_79B9 &+ UInt64(version))
        // A pentatonic scale: any sequence of its notes sounds like a tune.
        let scale = [0, 2, 4, 7, 9, 12, 14, 16].map { 261.63 * pow(2.0, Double($0) / 12.0) }
        let root = 1.0 + Double(random.next() % 5) / 12.0
        let noteLengths = [sampleRate / 4, sampleRate / 2, sampleRate * 3 / 8]
        var samples = [Int16](repeating: 0, count: sampleCount)
        var position = 0
        var phase = 0.0
        while position < sampleCount {
            let frequency = scale[Int(random.next() % UInt64(scale.count))] * root
            let length = min(noteLengths[Int(random.next() % 3)], sampleCount - position)
            let step = 2.0 * Double.pi * frequency / Double(sampleRate)
            for i in 0..<length {
                // A quick attack and a decay, so notes are heard as notes and never click.
                let envelope = min(1.0, Double(i) / 200.0) * max(0.0, 1.0 - Double(i) / Double(length))
                let value = (sin(phase) + 0.3 * sin(2 * phase)) * envelope * 0.45
                samples[position + i] = Int16(value * Double(Int16.max))
                phase += step
                if phase > 2 * Double.pi { phase -= 2 * Double.pi }
            }
            position += length
        }
        samples.withUnsafeBytes { raw in
            // WAV is little-endian, as is every machine this runs on; swap if not.
            if 1.littleEndian == 1 {
                data.append(contentsOf: raw)
            } else {
                for sample in samples { withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) } }
            }
        }
        return data
    }

    private func wavHeader(sampleCount: Int) -> Data {
        var header = Data()
        func append(_ text: String) { header.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header.append(contentsOf: $0) } }
        let dataBytes = sampleCount * 2
        append("RIFF")
        append32(36 + dataBytes)
        append("WAVE")
        append("fmt ")
        append32(16)
        append16(1)
        append16(1)
        append32(sampleRate)
        append32(sampleRate * 2)
        append16(2)
        append16(16)
        append("data")
        append32(dataBytes)
        return header
    }
}

/// SplitMix64: a small seeded generator, the same on every machine (synthesized previews, and the
/// test servers' replayable faults).
public struct SplitMix: Sendable {
    private var state: UInt64
    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next number.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
