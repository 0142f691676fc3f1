import Foundation
import HalfTunesKit
import Logging

/// How a HalfTunes command logs: to standard error, at the level `HALFTUNES_LOG` names (trace …
/// critical), warning by default.
public enum CommandLogging {
    /// Bootstraps swift-log so; once per process, before any logger is made.
    public static func bootstrap() {
        let level = ProcessInfo.processInfo.environment["HALFTUNES_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
