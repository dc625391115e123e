// `import TrainKit` brings every library module of the package at once: the services
// (TrainAuth, TrainSubscription, TrainSocial, TrainSync), the account layer over them
// (TrainAccount) and the store beneath (TrainCore). Tests add `import TrainTesting` for
// the fakes, the manual clock and the contract suites.
@_exported import TrainAccount
@_exported import TrainAuth
@_exported import TrainCore
@_exported import TrainSocial
@_exported import TrainSubscription
@_exported import TrainSync
