import Synchronization

/// Where other threads leave work for the daemon's loop; each delivery rings the loop's ``Wakeup``.
final class Inbox<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    let wakeup = Wakeup()

    func deliver(_ item: Element) {
        items.withLock { $0.append(item) }
        wakeup.ring()
    }

    func take() -> [Element] {
        items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}
