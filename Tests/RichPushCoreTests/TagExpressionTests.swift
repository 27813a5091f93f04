import RichPushCore
import Testing

@Suite("Tag expressions")
struct TagExpressionTests {
    @Test func aSingleTagMatchesOnlyInstallationsCarryingIt() throws {
        let expression = try TagExpression(parsing: "username:alice")
        #expect(expression.matches(["username:alice", "platform:apns"]))
        #expect(!expression.matches(["username:bob"]))
    }

    @Test func andBindsTighterThanOr() throws {
        let expression = try TagExpression(parsing: "a || b && c")
        #expect(expression == .or(.tag("a"), .and(.tag("b"), .tag("c"))))
        #expect(expression.matches(["a"]))
        #expect(!expression.matches(["b"]))
        #expect(expression.matches(["b", "c"]))
    }

    @Test func parenthesesOverridePrecedence() throws {
        let expression = try TagExpression(parsing: "(a || b) && c")
        #expect(!expression.matches(["a"]))
        #expect(expression.matches(["a", "c"]))
    }

    @Test func notNegatesTheFollowingOperand() throws {
        let expression = try TagExpression(parsing: "topic:sale && !lang:fr")
        #expect(expression.matches(["topic:sale", "lang:en"]))
        #expect(!expression.matches(["topic:sale", "lang:fr"]))
    }

    @Test func theApiExampleAddressesAliceOrEnglishSaleFollowers() throws {
        let expression = try TagExpression(parsing: "username:alice || (topic:sale && !lang:fr)")
        #expect(expression.matches(["username:alice", "lang:fr"]))
        #expect(expression.matches(["username:bob", "topic:sale"]))
        #expect(!expression.matches(["username:bob", "topic:sale", "lang:fr"]))
    }

    @Test func whitespaceIsInsignificant() throws {
        #expect(try TagExpression(parsing: "  a&&b  ||!c ") == TagExpression(parsing: "a && b || !c"))
    }

    @Test func doubleNegationCancels() throws {
        let expression = try TagExpression(parsing: "!!a")
        #expect(expression.matches(["a"]))
        #expect(!expression.matches([]))
    }

    @Test func tagsMayUseTheWholeHubAlphabet() throws {
        let expression = try TagExpression(parsing: "follows_RedSox@2024#x.y:z-1")
        #expect(expression == .tag("follows_RedSox@2024#x.y:z-1"))
    }

    @Test(arguments: [
        ("", "the expression is empty"),
        ("   ", "the expression is empty"),
        ("a &&", "expected a tag, '!' or '(' but the expression ended"),
        ("&& a", "expected a tag before '&'"),
        ("a & b", "expected '&&', '||' or the end, found '&'"),
        ("a | b", "expected '&&', '||' or the end, found '|'"),
        ("(a || b", "'(' is never closed"),
        ("a || b)", "unbalanced ')'"),
        ("a b", "expected '&&', '||' or the end, found 'b'"),
        ("a && $b", "'$' may not appear in a tag (allowed: letters, digits and _@#.:-)"),
        ("()", "expected a tag before ')'"),
        ("!", "expected a tag, '!' or '(' but the expression ended"),
    ])
    func malformedExpressionsAreRejectedWithAReason(text: String, reason: String) {
        #expect(throws: TagExpressionError.self) { try TagExpression(parsing: text) }
        do {
            _ = try TagExpression(parsing: text)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func aTagLongerThan120CharactersIsRejected() {
        let long = String(repeating: "x", count: 121)
        #expect(throws: TagExpressionError.self) { try TagExpression(parsing: long) }
        #expect(throws: Never.self) { try TagExpression(parsing: String(long.dropFirst())) }
    }

    @Test func deepNestingIsRejectedInsteadOfExhaustingTheStack() {
        let deep = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        #expect(throws: TagExpressionError.self) { try TagExpression(parsing: deep) }
        let bangs = String(repeating: "!", count: 10_000) + "a"
        #expect(throws: TagExpressionError.self) { try TagExpression(parsing: bangs) }
    }

    @Test func errorsNameTheCharacterPosition() {
        do {
            _ = try TagExpression(parsing: "a && %")
            Issue.record("expected an error")
        } catch {
            #expect(error.position == 5)
            #expect(error.description.hasSuffix("at character 6"))
        }
    }

    @Test func requiredTagsCoverEveryMatchingSet() throws {
        #expect(try TagExpression(parsing: "a").requiredTags == ["a"])
        #expect(try TagExpression(parsing: "a || b").requiredTags == ["a", "b"])
        #expect(try TagExpression(parsing: "a && !b").requiredTags == ["a"])
        #expect(try TagExpression(parsing: "!a").requiredTags == nil)
        #expect(try TagExpression(parsing: "a || !b").requiredTags == nil)
    }

    @Test func theCanonicalTextParsesBackToTheSameExpression() throws {
        for text in ["a || b && c", "(a || b) && c", "!(a && b) || !c", "a && (b || !(c && d))"] {
            let expression = try TagExpression(parsing: text)
            #expect(try TagExpression(parsing: expression.description) == expression)
        }
    }

    @Test func soleUsernameIsSetOnlyForASingleUsernameTag() throws {
        #expect(try TagExpression(parsing: "username:alice").soleUsername == "alice")
        #expect(try TagExpression(parsing: "username:alice || username:bob").soleUsername == nil)
        #expect(try TagExpression(parsing: "topic:alice").soleUsername == nil)
    }

    @Test func pureDisjunctionsAreRecognisedForTheHubsTagLimits() throws {
        #expect(try TagExpression(parsing: "a || b || c").isPureDisjunction)
        #expect(!(try TagExpression(parsing: "a || b && c").isPureDisjunction))
    }
}
