package dev.ax.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ax db backup FILE}: an online backup of a server's embedded database. */
@Command(
        name = "db",
        mixinStandardHelpOptions = true,
        description = "The server's database.",
        subcommands = DbCommand.Backup.class)
final class DbCommand extends GroupCommand {

    @Command(
            name = "backup",
            mixinStandardHelpOptions = true,
            description = {
                "Write an online backup of the server's embedded (H2) database to FILE, a zip, while the server goes on.",
                "To restore: stop the server, unzip FILE into its --data-dir (replacing ax.mv.db), start it again.",
                "A PostgreSQL store is backed up with pg_dump instead (the server says so). Needs an admin token."
            })
    static final class Backup extends ClientCommand {
        @Parameters(
                paramLabel = "FILE",
                description = "Where to write the backup (a .zip); an existing file is replaced.")
        Path file;

        @Override
        protected int run(ApiClient api) {
            byte[] zip = api.getBytes("/api/admin/backup", "application/zip");
            try {
                return write(api, zip);
            } catch (IOException e) {
                throw new CliException(ExitCodes.REFUSED, "cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        private int write(ApiClient api, byte[] zip) throws IOException {
            Path target = file.toAbsolutePath();
            Path parent = target.getParent();
            Path tmp = Files.createTempFile(parent, ".ax-backup-", ".part");
            try {
                Files.write(tmp, zip);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
            out().printf("backup of %s written to %s (%,d bytes)%n", api.base(), target, zip.length);
            return ExitCodes.OK;
        }
    }
}
