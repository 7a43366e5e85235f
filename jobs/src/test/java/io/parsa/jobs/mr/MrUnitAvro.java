package io.parsa.jobs.mr;

import org.apache.avro.Schema;
import org.apache.avro.hadoop.io.AvroSerialization;
import org.apache.avro.specific.SpecificData;
import org.apache.hadoop.conf.Configuration;

/** Lets MRUnit copy AvroKey / AvroValue records: registers Avro's Hadoop serialization with the schemas. */
public final class MrUnitAvro {

  private MrUnitAvro() {}

  /**
   * Keys of {@code keySchemas} and values of {@code valueSchema} (may be null). MRUnit copies both the inputs and
   * the outputs with the one "key" schema, so a mapper from AvroKey&lt;A&gt; to AvroKey&lt;B&gt; needs the union [A, B].
   */
  public static void configure(Configuration conf, Schema valueSchema, Schema... keySchemas) {
    Schema keySchema = keySchemas.length == 0 ? null
        : keySchemas.length == 1 ? keySchemas[0] : Schema.createUnion(keySchemas);
    AvroSerialization.addToConfiguration(conf);
    AvroSerialization.setDataModelClass(conf, SpecificData.class);
    if (keySchema != null) {
      AvroSerialization.setKeyWriterSchema(conf, keySchema);
      AvroSerialization.setKeyReaderSchema(conf, keySchema);
    }
    if (valueSchema != null) {
      AvroSerialization.setValueWriterSchema(conf, valueSchema);
      AvroSerialization.setValueReaderSchema(conf, valueSchema);
    }
  }
}
