import Foundation
import LeakReport
import Testing

@Suite("How a retain path prints")
struct RetainPathStepTests {
    @Test func aProvenPathPrintsAsAChain() {
        let steps = [
            RetainPathStep(holder: "App.ProfileViewModel", property: "coordinator", kind: .strong),
            RetainPathStep(holder: "App.MainCoordinator", property: "children[0]", kind: .collection),
        ]
        #expect(RetainPathStep.isProven(steps))
        #expect(RetainPathStep.readable(steps, leakedType: "App.ProfileViewModel")
            == "ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel")
    }

    /// A private type's anonymous context is dropped whole: the parentheses stay balanced.
    @Test func privateTypesPrintWithoutTheirAnonymousContext() {
        #expect(RetainPathStep.shortName("RxSwift.(unknown context at $7f3a21).BinaryDisposable") == "BinaryDisposable")
        #expect(RetainPathStep.shortName("Swift.Array<RxSwift.(unknown context at $7f3a21).SinkDisposer>") == "Array<SinkDisposer>")
        let steps = [
            RetainPathStep(holder: "App.Model", property: "bag", kind: .strong),
            RetainPathStep(holder: "RxSwift.(unknown context at $55e1).BinaryDisposable", property: "disposable1", kind: .strong),
        ]
        let text = RetainPathStep.readable(steps, leakedType: "App.Model")
        #expect(text == "Model.bag → BinaryDisposable.disposable1 → Model")
        #expect(text.filter { $0 == "(" }.count == text.filter { $0 == ")" }.count)
    }

    @Test func aPossiblePathNamesTheStepsNotProven() {
        let steps = [
            RetainPathStep(holder: "App.Feed", property: "subject", kind: .strong),
            RetainPathStep(holder: "App.Subject<Swift.Int>", property: "observers", kind: .closure, isPossible: true),
            RetainPathStep(holder: "App.Observer", property: "handler", kind: .unknown),
        ]
        #expect(!RetainPathStep.isProven(steps))
        #expect(RetainPathStep.readable(steps, leakedType: "App.Feed")
            == "Feed.subject → Subject<Int>.observers (closure) → captures Observer.handler → Feed "
            + "(possible: Subject<Int>.observers and Observer.handler are not proven to hold it strongly)")
        #expect(RetainPathStep.readableParts(steps, leakedType: "App.Feed")
            == ["Feed.subject", "Subject<Int>.observers (closure)", "captures Observer.handler", "Feed"])
    }

    /// An armed timer is a root: it prints as the timer (its queue's label kept whole, dots and
    /// all), then its handler, then what the handler captures.
    @Test func anArmedTimerPrintsAsTheTimerThenItsHandler() throws {
        let timer = RetainPathStep(holder: #"DispatchSource timer (armed, on queue "com.app.poll")"#, property: "eventHandler", kind: .timer)
        let steps = [timer, RetainPathStep(holder: "App.Poller<Swift.Int>", property: "observer", kind: .strong)]
        #expect(RetainPathStep.readable(steps, leakedType: "App.Feed")
            == #"DispatchSource timer (armed, on queue "com.app.poll") → eventHandler (closure) → captures Poller<Int>.observer → Feed"#)
        #expect(RetainPathStep.readableParts([timer], leakedType: "App.Feed")
            == [#"DispatchSource timer (armed, on queue "com.app.poll")"#, "eventHandler (closure)", "captures Feed"])
        var possible = timer
        possible.isPossible = true
        #expect(RetainPathStep.readable([possible], leakedType: "App.Feed")
            == #"DispatchSource timer (armed, on queue "com.app.poll") → eventHandler (closure) → captures Feed "#
            + #"(possible: DispatchSource timer (armed, on queue "com.app.poll") eventHandler is not proven to hold it strongly)"#)
        // A code flow (SARIF) marks both of the timer's parts, and only those.
        #expect(RetainPathStep.readableFlow([possible], leakedType: "App.Feed").map(\.isProven) == [false, false, true])
        let decoded = try JSONDecoder().decode(RetainPathStep.self, from: try JSONEncoder().encode(timer))
        #expect(decoded == timer)
    }

    /// A method reference is named by where it was written, between the closure that stores it
    /// and its receiver.
    @Test func aMethodReferencePrintsWhereItWasMade() {
        let steps = [
            RetainPathStep(holder: "RxSwift.AnonymousObserver<Swift.String>", property: "eventHandler", kind: .closure),
            RetainPathStep(holder: "App.SearchModel", property: "init()", kind: .methodReference),
        ]
        #expect(RetainPathStep.readable(steps, leakedType: "App.SearchModel")
            == "AnonymousObserver<String>.eventHandler (closure) → captures method reference made in SearchModel.init() → captures SearchModel")
    }

    /// `possible` is written only when true, and a step without it (every step reported before
    /// it existed) reads as proven.
    @Test func possibleIsOnTheWireOnlyWhenTrue() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let proven = RetainPathStep(holder: "A", property: "b", kind: .strong)
        let possible = RetainPathStep(holder: "A", property: "b", kind: .closure, isPossible: true)
        #expect(String(decoding: try encoder.encode(proven), as: UTF8.self) == #"{"holder":"A","kind":"strong","property":"b"}"#)
        #expect(String(decoding: try encoder.encode(possible), as: UTF8.self)
            == #"{"holder":"A","kind":"closure","possible":true,"property":"b"}"#)
        let old = try JSONDecoder().decode(RetainPathStep.self, from: Data(#"{"holder":"A","kind":"strong","property":"b"}"#.utf8))
        #expect(old == proven && old.isProven)
        #expect(try JSONDecoder().decode(RetainPathStep.self, from: try encoder.encode(possible)) == possible)
    }
}
