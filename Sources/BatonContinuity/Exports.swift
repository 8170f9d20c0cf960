// `import BatonContinuity` gives the whole runtime: Baton, its loop, and Foundation.
@_exported import Baton
