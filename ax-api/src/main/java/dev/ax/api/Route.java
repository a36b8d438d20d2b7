package dev.ax.api;

import dev.ax.domain.access.Role;
import io.javalin.http.Handler;

/**
 * One row of the route table: what {@link Routes#table} lists is exactly what the server
 * registers and what {@code openapi.json} must describe (a test holds them equal).
 *
 * @param path Javalin path syntax, which for {@code {param}} is also OpenAPI's
 */
public record Route(Method method, String path, Role role, Scope scope, String summary, Handler handler) {
    public enum Method {
        GET,
        POST,
        PUT,
        DELETE
    }

    static Route get(String path, Role role, String summary, Handler h) {
        return new Route(Method.GET, path, role, Scope.GLOBAL, summary, h);
    }

    static Route get(String path, Role role, Scope scope, String summary, Handler h) {
        return new Route(Method.GET, path, role, scope, summary, h);
    }

    static Route post(String path, Role role, String summary, Handler h) {
        return new Route(Method.POST, path, role, Scope.GLOBAL, summary, h);
    }

    static Route post(String path, Role role, Scope scope, String summary, Handler h) {
        return new Route(Method.POST, path, role, scope, summary, h);
    }

    static Route put(String path, Role role, String summary, Handler h) {
        return new Route(Method.PUT, path, role, Scope.GLOBAL, summary, h);
    }

    static Route put(String path, Role role, Scope scope, String summary, Handler h) {
        return new Route(Method.PUT, path, role, scope, summary, h);
    }

    static Route delete(String path, Role role, String summary, Handler h) {
        return new Route(Method.DELETE, path, role, Scope.GLOBAL, summary, h);
    }

    static Route delete(String path, Role role, Scope scope, String summary, Handler h) {
        return new Route(Method.DELETE, path, role, scope, summary, h);
    }
}
