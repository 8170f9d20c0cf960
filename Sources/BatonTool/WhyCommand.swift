import ArgumentParser
import BatonAgent
import Foundation

/// `baton why ACTIVITY-TYPE-OR-DEVICE`: why an activity is (not) offered here, or what a device
/// of the group is doing, in a sentence and the facts behind it.
struct WhyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Say why an activity is or is not offered here, or why a device's activities are not seen.",
        discussion: """
            SUBJECT is an activity type (reverse-DNS, as com.example.note.editing) or the name of a device of
            the group. The answer comes from the agent's inspection (`baton inspect`), whose offers are decided
            by the same code that continues activities. With --json: {"subject", "reason", "sentence", "facts"};
            the reasons are listed in docs/INSPECT.md. Exits with 3 when no agent runs.
            """)
    @Argument(help: "An activity type or a device name.") var subject: String
    @Flag(name: .long, help: "Print one JSON document instead of text.") var json = false
    @Option(name: .long, help: "The agent's socket (default: $BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket).")
    var agent: String?

    func run() throws {
        let inspection = try AgentInspectionTool.read(socket: agent, app: nil, actions: [])
        let answer = WhyAnswer.answer(for: subject, in: inspection)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            FileHandle.standardOutput.write((try? encoder.encode(answer)) ?? Data("{}".utf8))
            print()
        } else {
            print(answer.sentence)
            for fact in answer.facts { print("  \(fact)") }
        }
    }
}
