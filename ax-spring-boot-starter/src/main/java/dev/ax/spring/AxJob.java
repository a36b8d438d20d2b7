package dev.ax.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a Spring bean as the AX handler of that name: a task whose action is
 * {@code {"type":"sdk","handler":"syncOrders","group":"orders"}} runs it on a worker of group {@code orders}.
 *
 * <pre>
 * &#64;Component
 * class OrderJobs {
 *     &#64;AxJob("syncOrders")
 *     String syncOrders(AxContext ctx) throws Exception { ... }
 * }
 * </pre>
 *
 * <p>The method takes an {@link dev.ax.sdk.AxContext} (or nothing) and may return anything: the value's
 * {@code toString()} is the run's message, {@code void} and {@code null} mean none. What it throws fails
 * the attempt exactly as {@link dev.ax.sdk.AxHandler} describes. It is called on the bean as Spring
 * hands it out, so {@code @Transactional} and other proxies apply. Two methods with the same name
 * fail the application's start.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface AxJob {
    /** The handler name tasks refer to ({@code action.handler}). */
    String value();
}
