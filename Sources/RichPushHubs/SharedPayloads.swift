import RichPushCore

extension Array where Element == DeliveryJob {
    /// `make` of each job, made once for the jobs whose `key` is the same and shared by them: the jobs of one
    /// notification mostly carry one push, and encoding it per device cost more CPU than the rest of the push.
    func shared<Key: Hashable, Value>(by key: (DeliveryJob) -> Key, _ make: (DeliveryJob) -> Value) -> [Value] {
        var made: [Key: Value] = [:]
        return map { job in
            let key = key(job)
            if let known = made[key] { return known }
            let value = make(job)
            made[key] = value
            return value
        }
    }
}
