extension RGBAImage {
    /// An image from `rgba`: `width` × `height` RGBA quadruples, rows top to bottom.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(rgba.count == width * height * 4, "RGBA pixels must number width × height × 4 bytes")
        self.init(width: width, height: height, pixels: rgba)
    }

    /// A copy that fits in `maximumEdge` × `maximumEdge`, keeping the aspect ratio; never enlarged.
    ///
    /// Each target pixel is the area-weighted average of the source pixels it covers (a box filter), computed on
    /// alpha-premultiplied values so transparent pixels do not darken the edges.
    public func scaled(toFit maximumEdge: Int) -> RGBAImage {
        precondition(maximumEdge > 0)
        guard width > maximumEdge || height > maximumEdge else { return self }
        let scale = Double(maximumEdge) / Double(max(width, height))
        let targetWidth = max(1, Int((Double(width) * scale).rounded()))
        let targetHeight = max(1, Int((Double(height) * scale).rounded()))
        let columns = Coverage(source: width, target: targetWidth)
        let rows = Coverage(source: height, target: targetHeight)
        let sourceWidth = width
        let rowLength = targetWidth * 4

        // One target row at a time: each source row it covers shrinks horizontally (premultiplied) and adds into
        // the row's sums with its vertical weight. Two small row buffers instead of a whole intermediate image.
        let result = [UInt8](unsafeUninitializedCapacity: targetWidth * targetHeight * 4) { output, initialized in
            var sums = [Float](repeating: 0, count: rowLength)
            pixels.withUnsafeBufferPointer { source in
                sums.withUnsafeMutableBufferPointer { sums in
                    columns.withSpans { columnStarts, columnIndices, columnWeights in
                        rows.withSpans { rowStarts, rowIndices, rowWeights in
                            for y in 0..<targetHeight {
                                for offset in 0..<rowLength { sums[offset] = 0 }
                                for rowSpan in rowStarts[y]..<rowStarts[y + 1] {
                                    let row = rowIndices[rowSpan] * sourceWidth * 4
                                    let rowWeight = rowWeights[rowSpan] * (1 / 255)
                                    var target = 0
                                    for x in 0..<targetWidth {
                                        var red: Float = 0
                                        var green: Float = 0
                                        var blue: Float = 0
                                        var alpha: Float = 0
                                        for span in columnStarts[x]..<columnStarts[x + 1] {
                                            let index = row + columnIndices[span] * 4
                                            let weight = columnWeights[span] * Float(source[index + 3])
                                            red += Float(source[index]) * weight
                                            green += Float(source[index + 1]) * weight
                                            blue += Float(source[index + 2]) * weight
                                            alpha += weight
                                        }
                                        sums[target] += red * rowWeight
                                        sums[target + 1] += green * rowWeight
                                        sums[target + 2] += blue * rowWeight
                                        sums[target + 3] += alpha * rowWeight
                                        target += 4
                                    }
                                }
                                // Back to straight alpha.
                                let start = y * rowLength
                                for pixel in stride(from: 0, to: rowLength, by: 4) {
                                    let alpha = sums[pixel + 3]
                                    let unpremultiply = alpha > 0 ? 1 / alpha : 0
                                    output[start + pixel] = Self.channel(sums[pixel] * unpremultiply)
                                    output[start + pixel + 1] = Self.channel(sums[pixel + 1] * unpremultiply)
                                    output[start + pixel + 2] = Self.channel(sums[pixel + 2] * unpremultiply)
                                    output[start + pixel + 3] = Self.channel(alpha * 255)
                                }
                            }
                        }
                    }
                }
            }
            initialized = targetWidth * targetHeight * 4
        }
        return RGBAImage(width: targetWidth, height: targetHeight, pixels: result)
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

        func withSpans(
            _ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> Void
        ) {
            starts.withUnsafeBufferPointer { starts in
                indices.withUnsafeBufferPointer { indices in
                    weights.withUnsafeBufferPointer { weights in body(starts, indices, weights) }
                }
            }
        }
    }

    private static func channel(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
