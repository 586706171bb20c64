/**
 * HAR 1.2 export of flows. {@link dev.loupe.engine.flow.har.HarWriter} streams any number of
 * {@link dev.loupe.engine.flow.Flow}s into a HAR document with Jackson's streaming generator, one
 * entry and one body chunk at a time, and can replace a file atomically. The package-private
 * helpers decide how bodies, cookies, URLs and timings are written; all of them are stateless and
 * run on the caller's thread.
 *
 * <p>Format: <a href="http://www.softwareishard.com/blog/har-12-spec/">HAR 1.2</a>, checked in the
 * tests against the har-schema JSON schema that the npm har-validator uses, plus what the schema
 * leaves out (time equals the sum of timings, absolute URLs, ISO 8601 dates).
 */
package dev.loupe.engine.flow.har;
