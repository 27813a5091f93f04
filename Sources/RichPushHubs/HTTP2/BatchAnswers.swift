/// The answers of one batch, collected on the event loop until the last arrives.
final class BatchAnswers {
    private var answers: [Result<HubResponse, any Error>?]
    private var missing: Int
    private let answered: ((Int, Result<HubResponse, any Error>) -> Void)?
    private let completion: ([Result<HubResponse, any Error>]) -> Void

    init(
        count: Int, answered: ((Int, Result<HubResponse, any Error>) -> Void)?,
        completion: @escaping ([Result<HubResponse, any Error>]) -> Void
    ) {
        answers = Array(repeating: nil, count: count)
        missing = count
        self.answered = answered
        self.completion = completion
    }

    func set(_ index: Int, _ answer: Result<HubResponse, any Error>) {
        answered?(index, answer)
        answers[index] = answer
        missing -= 1
        if missing == 0 { completion(answers.map { $0! }) }
    }
}
