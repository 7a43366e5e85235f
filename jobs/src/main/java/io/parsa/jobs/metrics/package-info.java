/**
 * metrics: M_i, |V_i|, T_i, inner / inter accesses of a placement and of a seeded random placement, as
 * {@code report.json} (Avro JSON encoding of MetricsReport), {@code report.txt} and a self-contained
 * {@code report.html} (inline SVG bar charts, no scripts or network). See {@link io.parsa.jobs.metrics.MetricsTool}.
 */
package io.parsa.jobs.metrics;
