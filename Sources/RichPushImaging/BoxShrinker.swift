extension PixelImage {
    /// A copy that fits in `maximumEdge` × `maximumEdge`, keeping the aspect ratio; never enlarged.
    ///
    /// Each target pixel is the area-weighted average of the source pixels it covers (a box filter); with alpha,
    /// computed on premultiplied values so transparent pixels do not darken the edges.
    public func scaled(toFit maximumEdge: Int) -> PixelImage {
        guard let target = BoxShrinker.targetSize(width: width, height: height, fitting: maximumEdge) else { return self }
        var shrinker = BoxShrinker(width: width, height: height, channels: channels, target: target)
        pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                shrinker.add(UnsafeBufferPointer(rebasing: pixels[(y * rowStride)..<((y + 1) * rowStride)]))
            }
        }
        return shrinker.image()
    }
}

/// A box-filter shrink fed one source row at a time, top to bottom, so a decoder can shrink while it decodes.
///
/// Each row is shrunk horizontally once, then added, weighted by how much of each target row it covers, into
/// running sums for the (small) target image.
struct BoxShrinker {
    private let channels: Int
    private let targetWidth: Int
    private let targetHeight: Int
    /// Source rows per target row.
    private let rowStep: Double
    private let columns: Coverage
    private var sums: [Float]
    private var shrunkRow: [Float]
    private var nextRow = 0

    /// The size of the copy of a `width` × `height` image that fits in `maximumEdge` × `maximumEdge`, or nil when the
    /// image fits already.
    static func targetSize(width: Int, height: Int, fitting maximumEdge: Int) -> (width: Int, height: Int)? {
        precondition(maximumEdge > 0)
        guard width > maximumEdge || height > maximumEdge else { return nil }
        let scale = Double(maximumEdge) / Double(max(width, height))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    init(width: Int, height: Int, channels: Int, target: (width: Int, height: Int)) {
        precondition(channels == 3 || channels == 4, "only RGB and RGBA shrink")
        self.channels = channels
        targetWidth = target.width
        targetHeight = target.height
        rowStep = Double(height) / Double(target.height)
        columns = Coverage(source: width, target: target.width)
        sums = [Float](repeating: 0, count: target.width * target.height * channels)
        shrunkRow = [Float](repeating: 0, count: target.width * channels)
    }

    /// Adds the next source row: `width` × `channels` bytes.
    mutating func add(_ row: UnsafeBufferPointer<UInt8>) {
        let y = Double(nextRow)
        nextRow += 1
        if channels == 4 { shrinkPremultiplied(row) } else { shrinkOpaque(row) }
        let rowLength = targetWidth * channels
        var target = Int(y / rowStep)
        while target < targetHeight, Double(target) * rowStep < y + 1 {
            let overlap = min(Double(target + 1) * rowStep, y + 1) - max(Double(target) * rowStep, y)
            if overlap > 0 {
                let weight = Float(overlap / rowStep)
                let start = target * rowLength
                sums.withUnsafeMutableBufferPointer { sums in
                    shrunkRow.withUnsafeBufferPointer { shrunk in
                        for offset in 0..<rowLength { sums[start + offset] += shrunk[offset] * weight }
                    }
                }
            }
            target += 1
        }
    }

    /// The shrunk image, once every source row was added.
    func image() -> PixelImage {
        let count = sums.count
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            sums.withUnsafeBufferPointer { sums in
                if channels == 3 {
                    for offset in 0..<count { output[offset] = Self.channel(sums[offset]) }
                } else {
                    // Back to straight alpha: the colour sums carry alpha / 255, the alpha sum is coverage in 0...1.
                    for pixel in stride(from: 0, to: count, by: 4) {
                        let alpha = sums[pixel + 3]
                        let unpremultiply = alpha > 0 ? 1 / alpha : 0
                        output[pixel] = Self.channel(sums[pixel] * unpremultiply)
                        output[pixel + 1] = Self.channel(sums[pixel + 1] * unpremultiply)
                        output[pixel + 2] = Self.channel(sums[pixel + 2] * unpremultiply)
                        output[pixel + 3] = Self.channel(alpha * 255)
                    }
                }
            }
            initialized = count
        }
        return PixelImage(width: targetWidth, height: targetHeight, channels: channels, pixels: pixels)
    }

    private mutating func shrinkOpaque(_ row: UnsafeBufferPointer<UInt8>) {
        let targetWidth = targetWidth
        columns.withSpans { starts, indices, weights in
            shrunkRow.withUnsafeMutableBufferPointer { shrunk in
                for x in 0..<targetWidth {
                    var red: Float = 0
                    var green: Float = 0
                    var blue: Float = 0
                    for span in starts[x]..<starts[x + 1] {
                        let index = indices[span] * 3
                        let weight = weights[span]
                        red += Float(row[index]) * weight
                        green += Float(row[index + 1]) * weight
                        blue += Float(row[index + 2]) * weight
                    }
                    shrunk[x * 3] = red
                    shrunk[x * 3 + 1] = green
                    shrunk[x * 3 + 2] = blue
                }
            }
        }
    }

    private mutating func shrinkPremultiplied(_ row: UnsafeBufferPointer<UInt8>) {
        let targetWidth = targetWidth
        columns.withSpans { starts, indices, weights in
            shrunkRow.withUnsafeMutableBufferPointer { shrunk in
                for x in 0..<targetWidth {
                    var red: Float = 0
                    var green: Float = 0
                    var blue: Float = 0
                    var alpha: Float = 0
                    for span in starts[x]..<starts[x + 1] {
                        let index = indices[span] * 4
                        let weight = weights[span] * Float(row[index + 3]) * (1 / 255)
                        red += Float(row[index]) * weight
                        green += Float(row[index + 1]) * weight
                        blue += Float(row[index + 2]) * weight
                        alpha += weight
                    }
                    shrunk[x * 4] = red
                    shrunk[x * 4 + 1] = green
                    shrunk[x * 4 + 2] = blue
                    shrunk[x * 4 + 3] = alpha
                }
            }
        }
    }

    /// For each target position, the source positions it covers and how much of each, the weights summing to 1,
    /// in flat arrays: the spans of target position `t` are `starts[t]..<starts[t + 1]`.
    private struct Coverage {
        var starts: [Int] = [0]
        var indices: [Int] = []
        var weights: [Float] = []

        init(source: Int, target: Int) {
            let step = Double(source) / Double(target)
            for position in 0..<target {
                let start = Double(position) * step
                let end = min(Double(source), start + step)
                var index = Int(start)
                while Double(index) < end && index < source {
                    let overlap = min(end, Double(index + 1)) - max(start, Double(index))
                    if overlap > 0 {
                        indices.append(index)
                        weights.append(Float(overlap / step))
                    }
                    index += 1
                }
                starts.append(indices.count)
            }
        }

        func withSpans(_ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> Void) {
            starts.withUnsafeBufferPointer { starts in
                indices.withUnsafeBufferPointer { indices in
                    weights.withUnsafeBufferPointer { weights in body(starts, indices, weights) }
                }
            }
        }
    }

    /// Rounds half up; `value` is a sum of non-negative samples, so truncating `value + 0.5` is enough.
    private static func channel(_ value: Float) -> UInt8 {
        UInt8(min(255, value) + 0.5)
    }
}
