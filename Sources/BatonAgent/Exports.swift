@_exported import BatonContinuity
