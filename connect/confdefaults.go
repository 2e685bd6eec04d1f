package connect

import (
	"sort"
	"strings"

	"github.com/weirhq/weir/engine"
)

// clientConfDefaults are Spark's defaults for configuration keys the PySpark Connect client
// reads (createDataFrame, error display, toPandas, UDFs, plan compression) that the engine's
// configuration does not define. The engine's values, set or default, take precedence.
// Plan compression keys are deliberately absent: a missing key makes the client send plans
// uncompressed.
var clientConfDefaults = map[string]string{
	"spark.sql.session.localRelationCacheThreshold":              "67108864",
	"spark.sql.session.localRelationSizeLimit":                   "2147483647",
	"spark.sql.session.localRelationChunkSizeRows":               "10000",
	"spark.sql.session.localRelationChunkSizeBytes":              "16777216",
	"spark.sql.session.localRelationBatchOfChunksSizeBytes":      "67108864",
	"spark.sql.execution.pandas.convertToArrowArraySafely":       "false",
	"spark.sql.execution.pandas.inferPandasDictAsMap":            "false",
	"spark.sql.execution.pandas.structHandlingMode":              "legacy",
	"spark.sql.execution.arrow.pyspark.selfDestruct.enabled":     "false",
	"spark.sql.execution.arrow.useLargeVarTypes":                 "false",
	"spark.sql.execution.pyspark.binaryAsBytes":                  "true",
	"spark.sql.execution.pythonUDF.arrow.enabled":                "false",
	"spark.sql.execution.pythonUDTF.arrow.enabled":               "false",
	"spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled": "false",
	"spark.sql.connect.serverStacktrace.enabled":                 "false",
	"spark.sql.pyspark.jvmStacktrace.enabled":                    "false",
	"spark.sql.session.timeZone":                                 "UTC",
	"spark.sql.execution.arrow.maxRecordsPerBatch":               "10000",
}

// lookupConf returns key's value from conf, then the client defaults, then def.
func lookupConf(conf *engine.Conf, key, def string) string {
	if v, ok := confValue(conf, key); ok {
		return v
	}
	return def
}

// confValue returns key's value from conf or, failing that, the client defaults.
func confValue(conf *engine.Conf, key string) (string, bool) {
	if v, ok := conf.Get(key); ok {
		return v, true
	}
	v, ok := clientConfDefaults[key]
	return v, ok
}

// allConf lists every key with a value (conf's over the client defaults) under prefix,
// sorted by key.
func allConf(conf *engine.Conf, prefix string) [][2]string {
	m := map[string]string{}
	for k, v := range clientConfDefaults {
		if strings.HasPrefix(k, prefix) {
			m[k] = v
		}
	}
	for _, kv := range conf.All(prefix) {
		m[kv[0]] = kv[1]
	}
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
