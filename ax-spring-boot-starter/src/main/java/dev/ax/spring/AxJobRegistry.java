package dev.ax.spring;

import dev.ax.sdk.AxContext;
import dev.ax.sdk.AxHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link AxJob} methods of every bean as the beans are created (the way Spring finds
 * {@code @Scheduled} methods), checks them, and turns each into an {@link AxHandler} that calls the method
 * on the bean (the proxy, when there is one).
 */
public class AxJobRegistry implements BeanPostProcessor {

    private record Registered(String beanName, Method method, AxHandler handler) {}

    private final Map<String, Registered> jobs = new LinkedHashMap<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, AxJob> annotated = MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<AxJob>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, AxJob.class));
        annotated.forEach((method, job) -> register(bean, beanName, method, job.value()));
        return bean;
    }

    /** Handler name to handler, in the order found. */
    public synchronized Map<String, AxHandler> handlers() {
        Map<String, AxHandler> out = new LinkedHashMap<>();
        jobs.forEach((name, job) -> out.put(name, job.handler()));
        return Collections.unmodifiableMap(out);
    }

    private synchronized void register(Object bean, String beanName, Method method, String name) {
        String where = beanName + "." + method.getName();
        if (name == null || name.isBlank()) {
            throw new BeanInitializationException(
                    "@AxJob on " + where + " needs a handler name: @AxJob(\"syncOrders\")");
        }
        Class<?>[] params = method.getParameterTypes();
        boolean takesContext = params.length == 1 && params[0] == AxContext.class;
        if (params.length > 1 || (params.length == 1 && !takesContext)) {
            throw new BeanInitializationException("@AxJob method " + where + " must take an AxContext or nothing");
        }
        Registered other = jobs.get(name);
        if (other != null) {
            throw new BeanInitializationException("two @AxJob methods are named '" + name + "': " + other.beanName()
                    + "." + other.method().getName() + " and " + where);
        }
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(invocable);
        AxHandler handler = ctx -> invoke(bean, invocable, takesContext ? new Object[] {ctx} : new Object[0]);
        jobs.put(name, new Registered(beanName, method, handler));
    }

    /** Calls the method and lets its own exception out, so the run's message names it and not reflection. */
    private static Object invoke(Object bean, Method method, Object[] args) throws Exception {
        try {
            return method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}
