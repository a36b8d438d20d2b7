package dev.ax.console;

/** Input a console page cannot use (a malformed id, filter or cursor): a 400 page saying which and why. */
final class BadRequest extends RuntimeException {
    BadRequest(String message) {
        super(message);
    }
}
