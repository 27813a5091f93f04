import Testing

@testable import RichPushStore

@Suite("Deliveries held in memory")
struct HeldDeliveriesTests {
    @Test func heldDeliveriesComeInAscendingOrderWhateverOrderTheyWereHeldAndLetGoIn() {
        let held = HeldDeliveries()
        held.hold([5, 3, 9], until: 100)
        held.hold([1, 4], until: 100)
        held.release([3, 42])
        held.hold([2, 5], until: 100)
        held.release([9])
        #expect(held.held(at: 0).held == [1, 2, 4, 5])
    }

    @Test func aHoldThatRanOutIsLetGoAndNamedOnce() {
        let held = HeldDeliveries()
        held.hold([7, 1], until: 10)
        held.hold([4], until: 20)
        let first = held.held(at: 15)
        #expect(first.held == [4])
        #expect(first.lapsed.sorted() == [1, 7])
        #expect(held.held(at: 16).lapsed.isEmpty)
    }

    @Test func anExtendedHoldOutlastsItsFirstTermButALetGoOneIsNotTakenBack() {
        let held = HeldDeliveries()
        held.hold([1, 2], until: 10)
        held.release([2])
        held.extend([1, 2], until: 30)
        #expect(held.held(at: 20) == (held: [1], lapsed: []))
    }
}
