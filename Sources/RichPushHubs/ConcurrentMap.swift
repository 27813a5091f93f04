extension Array where Element: Sendable {
    /// Applies `transform` to every element with at most `maximum` running at once, keeping the order of the results;
    /// `finished` hears of each result as it comes, with its element's index.
    func concurrentMap<Result: Sendable>(
        maximum: Int, finished: (Int, Result) -> Void = { _, _ in }, _ transform: @escaping @Sendable (Element) async -> Result
    ) async -> [Result] {
        guard !isEmpty else { return [] }
        var results = [Result?](repeating: nil, count: count)
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            func startNext() {
                guard next < count else { return }
                let index = next
                let element = self[index]
                group.addTask { (index, await transform(element)) }
                next += 1
            }
            for _ in 0..<Swift.min(Swift.max(1, maximum), count) { startNext() }
            for await (index, result) in group {
                finished(index, result)
                results[index] = result
                startNext()
            }
        }
        return results.map { $0! }
    }
}
