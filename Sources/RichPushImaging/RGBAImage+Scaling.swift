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
        let columns = Self.coverage(source: width, target: targetWidth)
        let rows = Self.coverage(source: height, target: targetHeight)

        // Horizontal pass: every source row shrinks to targetWidth premultiplied pixels.
        var horizontal = [Float](repeating: 0, count: height * targetWidth * 4)
        pixels.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { output in
                for y in 0..<height {
                    let rowStart = y * width * 4
                    for (x, spans) in columns.enumerated() {
                        var red: Float = 0
                        var green: Float = 0
                        var blue: Float = 0
                        var alpha: Float = 0
                        for span in spans {
                            let index = rowStart + span.index * 4
                            let weight = span.weight * Float(source[index + 3]) / 255
                            red += Float(source[index]) * weight
                            green += Float(source[index + 1]) * weight
                            blue += Float(source[index + 2]) * weight
                            alpha += weight
                        }
                        let target = (y * targetWidth + x) * 4
                        output[target] = red
                        output[target + 1] = green
                        output[target + 2] = blue
                        output[target + 3] = alpha
                    }
                }
            }
        }

        // Vertical pass, then back to straight alpha.
        var result = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        horizontal.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { output in
                for (y, spans) in rows.enumerated() {
                    for x in 0..<targetWidth {
                        var red: Float = 0
                        var green: Float = 0
                        var blue: Float = 0
                        var alpha: Float = 0
                        for span in spans {
                            let index = (span.index * targetWidth + x) * 4
                            red += source[index] * span.weight
                            green += source[index + 1] * span.weight
                            blue += source[index + 2] * span.weight
                            alpha += source[index + 3] * span.weight
                        }
                        let target = (y * targetWidth + x) * 4
                        if alpha > 0 {
                            output[target] = Self.channel(red / alpha)
                            output[target + 1] = Self.channel(green / alpha)
                            output[target + 2] = Self.channel(blue / alpha)
                        }
                        output[target + 3] = Self.channel(alpha * 255)
                    }
                }
            }
        }
        return RGBAImage(width: targetWidth, height: targetHeight, pixels: result)
    }

    private struct Span {
        var index: Int
        var weight: Float
    }

    /// For each target position, the source positions it covers and how much of each, the weights summing to 1.
    private static func coverage(source: Int, target: Int) -> [[Span]] {
        let step = Double(source) / Double(target)
        return (0..<target).map { position in
            let start = Double(position) * step
            let end = min(Double(source), start + step)
            var spans: [Span] = []
            var index = Int(start)
            while Double(index) < end && index < source {
                let overlap = min(end, Double(index + 1)) - max(start, Double(index))
                if overlap > 0 { spans.append(Span(index: index, weight: Float(overlap / step))) }
                index += 1
            }
            return spans
        }
    }

    private static func channel(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
