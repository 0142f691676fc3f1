import Foundation
import GRDB
import TransferEngine

extension LibraryStore {
    /// Opens the index as ``init(path:folder:)`` does, on a thread of its own
    /// (``DatabaseOpening``), so that the task waiting holds none of Swift's cooperative threads.
    static func open(path: String, folder: URL) async throws -> LibraryStore {
        try await DatabaseOpening.run(label: "halftunes.library.open") {
            try LibraryStore(path: path, folder: folder)
        }
    }

    /// The index's schema, version by version (each migration runs once, in order).
    static func migrator(folder: URL) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "libraryTrack") { t in
                t.primaryKey("id", .integer)
                t.column("trackJSON", .text).notNull()
                t.column("fileName", .text).notNull()
                t.column("addedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: change numbers, sizes, tombstones") { db in
            try db.alter(table: "libraryTrack") { t in
                t.add(column: "seq", .integer).notNull().defaults(to: 0)
                t.add(column: "fileSize", .integer)
                for name in ["name", "artist", "album", "artworkURL", "genre", "explicitness", "previewURL"] {
                    t.add(column: name, .text)
                }
                t.add(column: "durationMs", .integer)
                t.add(column: "releaseDate", .datetime)
            }
            let rows = try Row.order(Column("addedAt"), Column("id")).fetchAll(db)
            for (index, old) in rows.enumerated() {
                guard let track = old.track else { continue }
                let row = Row(
                    track: track, trackJSON: old.trackJSON, fileName: old.fileName, addedAt: old.addedAt, seq: Int64(index + 1),
                    fileSize: FolderStamp.size(of: folder.appending(path: old.fileName, directoryHint: .notDirectory)))
                try row.update(db)
            }
            try db.create(index: "libraryTrack_seq", on: "libraryTrack", columns: ["seq"], unique: true)
            try db.create(table: "libraryRemoval") { t in
                t.primaryKey("id", .integer)
                t.column("seq", .integer).notNull().indexed()
            }
            // The totals, kept by triggers, so a listing reads them in one row; and the change counter.
            try db.execute(
                sql: """
                    CREATE TABLE librarySummary (
                        id INTEGER PRIMARY KEY CHECK (id = 1), trackCount INTEGER NOT NULL, totalBytes INTEGER NOT NULL,
                        lastSeq INTEGER NOT NULL);
                    INSERT INTO librarySummary SELECT 1, COUNT(*), IFNULL(SUM(fileSize), 0), IFNULL(MAX(seq), 0) FROM libraryTrack;
                    CREATE TRIGGER libraryTrack_inserted AFTER INSERT ON libraryTrack BEGIN
                        UPDATE librarySummary SET trackCount = trackCount + 1, totalBytes = totalBytes + IFNULL(NEW.fileSize, 0);
                    END;
                    CREATE TRIGGER libraryTrack_deleted AFTER DELETE ON libraryTrack BEGIN
                        UPDATE librarySummary SET trackCount = trackCount - 1, totalBytes = totalBytes - IFNULL(OLD.fileSize, 0);
                    END;
                    CREATE TRIGGER libraryTrack_resized AFTER UPDATE OF fileSize ON libraryTrack BEGIN
                        UPDATE librarySummary SET totalBytes = totalBytes - IFNULL(OLD.fileSize, 0) + IFNULL(NEW.fileSize, 0);
                    END;
                    """)
        }
        migrator.registerMigration("v3: store links, track numbers, tag warnings") { db in
            try db.alter(table: "libraryTrack") { t in
                t.add(column: "storeURL", .text)
                t.add(column: "trackNumber", .integer)
                t.add(column: "trackCount", .integer)
                t.add(column: "warning", .text)
            }
        }
        return migrator
    }
}
