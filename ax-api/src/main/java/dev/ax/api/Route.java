package dev.ax.api;

import io.javalin.http.Handler;

/**
 * One row of the route table: what {@link Routes#table} lists is exactly what the server
 * registers and what {@code openapi.json} must describe (a test holds them equal).
 *
 * @param path Javalin path syntax, which for {@code {param}} is also OpenAPI's
 */
public record Route(Method method, String path, Role role, String summary, Handler handler) {
    public enum Method {
        GET, POST, PUT, DELETE
    }

    static Route get(String path, Role role, String summary, Handler h) {
        return new Route(Method.GET, path, role, summary, h);
    }

    static Route post(String path, Role role, String summary, Handler h) {
        return new Route(Method.POST, path, role, summary, h);
    }

    static Route put(String path, Role role, String summary, Handler h) {
        return new Route(Method.PUT, path, role, summary, h);
    }

    static Route delete(String path, Role role, String summary, Handler h) {
        return new Route(Method.DELETE, path, role, summary, h);
    }
}
