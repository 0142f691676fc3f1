// `import Transfers` gives the whole library: the URLSession-shaped layer in this module and the
// engine under it (TransferSession, the journal, ResumeData), which lives in a module of its own so
// that programs using only the engine do not link FoundationNetworking.
@_exported import TransferEngine

@_exported import struct NetworkBasics.ProxySettings
@_exported import struct NetworkBasics.TrustRoots
