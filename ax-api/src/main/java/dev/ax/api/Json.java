package dev.ax.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The one JSON configuration of the API: Java time as ISO-8601 strings, records read natively. */
public final class Json {
    /**
     * Deepest nesting of arrays and objects a request may have. AX's own documents nest a few levels; a
     * body of a million brackets costs nothing to send and deep recursion to everything that walks it.
     * Document and string length need no limit of their own: the request size limit bounds them.
     */
    public static final int MAX_NESTING_DEPTH = 64;

    private Json() {}

    /**
     * Unknown properties are ignored so that an executor one version ahead can still talk to
     * this server; task definitions are checked field by field by the domain codec instead.
     */
    public static ObjectMapper mapper() {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING_DEPTH)
                        .build())
                .build();
        return new ObjectMapper(factory)
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }
}
