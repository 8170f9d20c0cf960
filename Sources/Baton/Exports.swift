// `import Baton` gives what `import AppKit` gives an app: the runtime and Foundation.
@_exported import BatonLoop
@_exported import Foundation
