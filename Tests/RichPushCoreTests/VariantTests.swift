import RichPushCore
import Testing

@Suite("Assigning users to A/B variants")
struct VariantTests {
    static func variants(_ weights: [Int]) -> [Variant] {
        weights.enumerated().map { Variant(name: "V\($0.offset)", weight: $0.element, message: "m\($0.offset)", content: PushContent()) }
    }

    @Test func aUserGetsTheSameVariantEveryTime() {
        let variants = Self.variants([50, 50])
        let first = (0..<200).map { Variant.assigned(to: "user\($0)", of: 42, among: variants)?.name }
        let again = (0..<200).map { Variant.assigned(to: "user\($0)", of: 42, among: variants)?.name }
        #expect(first == again)
    }

    @Test func usersSpreadOverTheVariantsByWeight() {
        let variants = Self.variants([20, 30, 50])
        var counts: [String: Int] = [:]
        for user in 0..<10_000 { counts[Variant.assigned(to: "user\(user)", of: 7, among: variants)!.name, default: 0] += 1 }
        #expect((1_800...2_200).contains(counts["V0"] ?? 0))
        #expect((2_750...3_250).contains(counts["V1"] ?? 0))
        #expect((4_700...5_300).contains(counts["V2"] ?? 0))
    }

    @Test func aVariantOfWeightZeroGetsNobody() {
        let variants = Self.variants([0, 100])
        #expect((0..<1_000).allSatisfy { Variant.assigned(to: "user\($0)", of: 1, among: variants)?.name == "V1" })
    }

    @Test func anotherTestDealsTheSameUsersAfresh() {
        let variants = Self.variants([50, 50])
        let users = (0..<200).map { "user\($0)" }
        let first = users.map { Variant.assigned(to: $0, of: 1, among: variants)?.name }
        let second = users.map { Variant.assigned(to: $0, of: 2, among: variants)?.name }
        #expect(first != second)
    }
}
