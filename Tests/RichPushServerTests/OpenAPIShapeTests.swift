import Foundation
import RichPushCore
import TestSupport
import Testing

@testable import RichPushServer

/// `Public/openapi.yaml` held to the types the server answers with and the clients decode (RichPushCore's `API/`):
/// each type's samples, encoded as the server encodes them, checked against the schema the document gives it by
/// `Tests/openapi/check_samples.py` (jsonschema, through openapi-schema-validator for OpenAPI 3.0's `nullable`).
@Suite("The OpenAPI document against the API's types")
struct OpenAPIShapeTests {
    let document = repositoryRoot.appendingPathComponent("Public/openapi.yaml").path
    let checker = repositoryRoot.appendingPathComponent("Tests/openapi/check_samples.py").path

    @Test func everyResponseTypeHasExactlyTheFieldsItsSchemaLists() async throws {
        let samples = try APIShapeSamples.all()
        for sample in samples where sample.complete {
            let unset = Self.unsetOptionals(in: sample.value).filter { !sample.mayLeaveUnset.contains($0) }
            #expect(unset.isEmpty, "the complete sample of \(sample.name) leaves \(unset.joined(separator: ", ")) unset")
        }
        let entries = try samples.map { sample in
            let encoded = String(decoding: try JSONEncoder.compact.encode(sample.value), as: UTF8.self)
            return #"{"name": \#(Self.quoted(sample.name)), "schema": \#(Self.quoted(sample.schema)), "complete": \#(sample.complete), "#
                + #""request": \#(sample.isRequest), "sample": \#(encoded)}"#
        }
        try await check(entries)
    }

    @Test func everyEnumerationListsTheCasesOfItsType() async throws {
        func entry<Case: CaseIterable & RawRepresentable<String>>(_ type: Case.Type, _ schema: String) -> String {
            let cases = type.allCases.map { Self.quoted($0.rawValue) }.joined(separator: ", ")
            return #"{"name": \#(Self.quoted(String(describing: type))), "schema": \#(Self.quoted(schema)), "cases": [\#(cases)]}"#
        }
        try await check([
            entry(Role.self, "#/components/schemas/Role"), entry(RichType.self, "#/components/schemas/RichType"),
            entry(PushStyle.self, "#/components/schemas/PushStyle"), entry(NotificationState.self, "#/components/schemas/NotificationState"),
            entry(Platform.self, "#/components/schemas/Platform"), entry(ReadState.self, "#/components/schemas/ReadState"),
            entry(UserActionState.self, "#/components/schemas/UserActionState"),
            entry(ReceiptEvent.self, "#/components/schemas/Receipt/properties/event"),
            entry(WebhookEventType.self, "#/components/schemas/WebhookEventType"),
            entry(ActionKind.self, "#/components/schemas/Action/properties/kind"),
            entry(ActionMethod.self, "#/components/schemas/Action/properties/method"),
            entry(InterruptionLevel.self, "#/components/schemas/InterruptionLevel"),
            entry(LiveActivityEvent.self, "#/components/schemas/ActivityDelivery/properties/event"),
        ])
    }

    private func check(_ entries: [String]) async throws {
        let result = try await SpawnedProcess.run(
            "/usr/bin/env", ["python3", checker, document], input: "[" + entries.joined(separator: ",\n") + "]")
        #expect(result.status == 0, "Public/openapi.yaml disagrees with the types:\n\(result.output)")
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// The paths, from `value`, of every optional that is nil: a complete sample has none, so a field added to a type
    /// is either in its sample, and so held to the document, or named here.
    static func unsetOptionals(in value: Any, at path: String = "") -> [String] {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return [path] }
            return unsetOptionals(in: wrapped, at: path)
        case .struct, .class:
            return mirror.children.flatMap { child in
                unsetOptionals(in: child.value, at: path.isEmpty ? child.label ?? "?" : "\(path).\(child.label ?? "?")")
            }
        case .collection:
            return mirror.children.enumerated().flatMap { index, child in unsetOptionals(in: child.value, at: "\(path)[\(index)]") }
        case .dictionary:
            // Each entry reflects as a (key, value) pair.
            return mirror.children.flatMap { entry in
                Mirror(reflecting: entry.value).children.dropFirst().flatMap { unsetOptionals(in: $0.value, at: "\(path)[…]") }
            }
        default:
            return []
        }
    }
}
