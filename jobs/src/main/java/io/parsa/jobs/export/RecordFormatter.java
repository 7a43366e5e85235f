package io.parsa.jobs.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * Turns generic Avro records into TSV cells or JSON objects.
 *
 * <ul>
 *   <li>numbers, booleans, strings and enum symbols as themselves; null as an empty TSV cell / JSON null;
 *   <li>bytes and fixed as text when they are valid UTF-8 (the raw input lines of GraphRow), otherwise as
 *       {@code base64:...};
 *   <li>arrays of numbers as comma-separated values in TSV; other arrays, maps and nested records as JSON;
 *   <li>in TSV, tab, newline, carriage return and backslash inside a cell are written as {@code \t \n \r \\}.
 * </ul>
 */
final class RecordFormatter {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final Schema schema;

  RecordFormatter(Schema schema) {
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("export reads record files, got " + schema.getType());
    }
    this.schema = schema;
  }

  String tsvHeader() {
    StringBuilder sb = new StringBuilder();
    for (Schema.Field f : schema.getFields()) {
      if (sb.length() > 0) {
        sb.append('\t');
      }
      sb.append(f.name());
    }
    return sb.toString();
  }

  String tsv(Object rec) {
    GenericRecord r = (GenericRecord) rec;
    StringBuilder sb = new StringBuilder();
    boolean firstField = true;
    for (Schema.Field f : schema.getFields()) {
      if (!firstField) {
        sb.append('\t');
      }
      firstField = false;
      escape(sb, cell(r.get(f.pos())));
    }
    return sb.toString();
  }

  String json(Object rec) {
    try {
      return MAPPER.writeValueAsString(node(rec));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write record as JSON", e);
    }
  }

  private static String cell(Object v) {
    if (v == null) {
      return "";
    }
    if (v instanceof Collection<?> c && c.stream().allMatch(x -> x instanceof Number)) {
      StringBuilder sb = new StringBuilder();
      for (Object x : c) {
        if (sb.length() > 0) {
          sb.append(',');
        }
        sb.append(x);
      }
      return sb.toString();
    }
    if (v instanceof Collection<?> || v instanceof Map<?, ?> || v instanceof GenericRecord) {
      return node(v).toString();
    }
    if (v instanceof ByteBuffer || v instanceof GenericFixed) {
      return bytesText(v);
    }
    return v.toString();
  }

  private static JsonNode node(Object v) {
    if (v == null) {
      return NODES.nullNode();
    }
    if (v instanceof GenericRecord r) {
      ObjectNode o = NODES.objectNode();
      for (Schema.Field f : r.getSchema().getFields()) {
        o.set(f.name(), node(r.get(f.pos())));
      }
      return o;
    }
    if (v instanceof Map<?, ?> m) {
      ObjectNode o = NODES.objectNode();
      m.forEach((k, x) -> o.set(String.valueOf(k), node(x)));
      return o;
    }
    if (v instanceof Collection<?> c) {
      ArrayNode a = NODES.arrayNode();
      c.forEach(x -> a.add(node(x)));
      return a;
    }
    if (v instanceof Long l) {
      return NODES.numberNode(l);
    }
    if (v instanceof Integer i) {
      return NODES.numberNode(i);
    }
    if (v instanceof Double d) {
      return NODES.numberNode(d);
    }
    if (v instanceof Float f) {
      return NODES.numberNode(f);
    }
    if (v instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (v instanceof ByteBuffer || v instanceof GenericFixed) {
      return NODES.textNode(bytesText(v));
    }
    if (v instanceof GenericContainer g && g.getSchema().getType() == Schema.Type.ENUM) {
      return NODES.textNode(v.toString());
    }
    return NODES.textNode(v.toString());
  }

  private static String bytesText(Object v) {
    byte[] b;
    if (v instanceof ByteBuffer buf) {
      b = new byte[buf.remaining()];
      buf.duplicate().get(b);
    } else {
      b = ((GenericFixed) v).bytes();
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return "base64:" + java.util.Base64.getEncoder().encodeToString(b);
    }
  }

  private static void escape(StringBuilder sb, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\t' -> sb.append("\\t");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\\' -> sb.append("\\\\");
        default -> sb.append(c);
      }
    }
  }
}
