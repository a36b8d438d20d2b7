package dev.ax.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON columns (definitions, parameters, event data) as plain maps. */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectMapper SORTED =
            new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};
    private static final TypeReference<ArrayList<Object>> LIST = new TypeReference<>() {};

    private Json() {}

    public static String write(Object value) {
        if (value == null) {
            return null;
        }
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /**
     * {@code value} as JSON with the keys of every object in sorted order, so that two requests with
     * the same content give the same text whatever order their fields came in.
     */
    public static String canonical(Object value) {
        try {
            return SORTED.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    public static Map<String, Object> readMap(String json) {
        if (json == null || json.isEmpty()) {
            return Map.of();
        }
        try {
            return MAPPER.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new StoreException("corrupt JSON in the database: " + e.getOriginalMessage(), e);
        }
    }

    public static List<Object> readList(String json) {
        if (json == null || json.isEmpty()) {
            return List.of();
        }
        try {
            return MAPPER.readValue(json, LIST);
        } catch (JsonProcessingException e) {
            throw new StoreException("corrupt JSON in the database: " + e.getOriginalMessage(), e);
        }
    }
}
