import BatonAgent
import Foundation

// `batond`: the per-user Baton agent (filled in by issue 10's work).
FileHandle.standardError.write(Data("batond: not yet implemented\n".utf8))
exit(1)
