package pyworker

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// taskContext is the TaskContext worker.py rebuilds (TaskContext.from_json, or
// BarrierTaskContext.from_json with isBarrier: then connInfo and secret say where its barrier()
// and allGather() connect, see Barrier).
type taskContext struct {
	IsBarrier       bool              `json:"isBarrier"`
	ConnInfo        int               `json:"connInfo,omitempty"`
	Secret          string            `json:"secret,omitempty"`
	StageID         int               `json:"stageId"`
	PartitionID     int               `json:"partitionId"`
	AttemptNumber   int               `json:"attemptNumber"`
	TaskAttemptID   int64             `json:"taskAttemptId"`
	CPUs            int               `json:"cpus"`
	Resources       map[string]any    `json:"resources"`
	LocalProperties map[string]string `json:"localProperties"`
}

// writeTaskHeader writes what worker.py's main reads before a task's data, in its order:
//
//	int partition index; UTF python version (check_python_version); UTF task context JSON;
//	UTF spark files dir, int n + n UTF python includes (setup_spark_files);
//	bool needs-decryption-server + int n broadcasts (setup_broadcasts: none here);
//	int eval type; runner conf and eval conf (Conf.load: int n + n UTF key/value pairs);
//	then the family's command section (read_udfs, read_command).
func writeTaskHeader(w io.Writer, t *Task, fam *family, evalConf map[string]string, filesDir string) error {
	props := t.LocalProperties
	if props == nil {
		props = map[string]string{}
	}
	ctx := taskContext{
		PartitionID:     t.PartitionIndex,
		CPUs:            1,
		Resources:       map[string]any{},
		LocalProperties: props,
	}
	if t.Barrier != nil {
		ctx.IsBarrier, ctx.ConnInfo, ctx.Secret = true, t.barrierPort, t.barrierSecret
		withAddrs := make(map[string]string, len(props)+1)
		for k, v := range props {
			withAddrs[k] = v
		}
		withAddrs["addresses"] = t.Barrier.addresses(t.barrierPort)
		ctx.LocalProperties = withAddrs
	}
	tc, err := json.Marshal(ctx)
	if err != nil {
		return err
	}
	if t.SparkFilesDir != "" {
		filesDir = t.SparkFilesDir
	}
	for _, step := range []func() error{
		func() error { return writeInt(w, int32(t.PartitionIndex)) },
		func() error { return writeBytes(w, []byte(t.PythonVersion)) },
		func() error { return writeBytes(w, tc) },
		func() error { return writeBytes(w, []byte(filesDir)) },
		func() error { return writeStrings(w, t.PythonIncludes) },
		func() error { _, err := w.Write([]byte{0}); return err }, // no broadcast decryption server
		func() error { return writeInt(w, 0) },                    // no broadcast variables
		func() error { return writeInt(w, int32(t.EvalType)) },
		func() error { return writeConf(w, t.Conf) },
		func() error { return writeConf(w, evalConf) },
		func() error { return fam.writeCommand(w, t) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func writeStrings(w io.Writer, ss []string) error {
	if err := writeInt(w, int32(len(ss))); err != nil {
		return err
	}
	for _, s := range ss {
		if err := writeBytes(w, []byte(s)); err != nil {
			return err
		}
	}
	return nil
}

// writeConf writes a conf as worker_util.Conf.load reads it, keys sorted.
func writeConf(w io.Writer, conf map[string]string) error {
	keys := make([]string, 0, len(conf))
	for k := range conf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := writeInt(w, int32(len(keys))); err != nil {
		return err
	}
	for _, k := range keys {
		if err := writeBytes(w, []byte(k)); err != nil {
			return err
		}
		if err := writeBytes(w, []byte(conf[k])); err != nil {
			return err
		}
	}
	return nil
}

// udfArg is one argument of a UDF as read_single_udf reads it: a column offset, named when the
// function takes it as a keyword argument.
type udfArg struct {
	offset int
	name   string
}

// plainArgs are a UDF's ArgOffsets with their ArgNames.
func plainArgs(u *UDF) ([]udfArg, error) {
	if u.ArgNames != nil && len(u.ArgNames) != len(u.ArgOffsets) {
		return nil, fmt.Errorf("pyworker: %d argument names for %d arguments", len(u.ArgNames), len(u.ArgOffsets))
	}
	args := make([]udfArg, len(u.ArgOffsets))
	for i, o := range u.ArgOffsets {
		args[i].offset = o
		if u.ArgNames != nil {
			args[i].name = u.ArgNames[i]
		}
	}
	return args, nil
}

// sideArgs encodes a grouped or cogrouped UDF's Sides the way worker.py's
// extract_key_value_indexes parses them: per side, its length, the number of keys, the key
// offsets, the value offsets.
func sideArgs(sides int) func(u *UDF) ([]udfArg, error) {
	return func(u *UDF) ([]udfArg, error) {
		if len(u.Sides) != sides {
			return nil, fmt.Errorf("pyworker: a grouped UDF needs %d sides of key and value offsets, has %d", sides, len(u.Sides))
		}
		var args []udfArg
		for _, s := range u.Sides {
			args = append(args, udfArg{offset: 1 + len(s.Keys) + len(s.Values)}, udfArg{offset: len(s.Keys)})
			for _, o := range s.Keys {
				args = append(args, udfArg{offset: o})
			}
			for _, o := range s.Values {
				args = append(args, udfArg{offset: o})
			}
		}
		return args, nil
	}
}

// wholeInputArg is the argument of the map kinds: the input batch as one struct column (Spark's
// MapInBatchExec passes Array(Array(0))).
func wholeInputArg(*UDF) ([]udfArg, error) { return []udfArg{{offset: 0}}, nil }

// writeUDFs writes read_udfs' section: int number of UDFs, then per UDF (read_single_udf) int
// number of arguments, per argument int offset + bool named (+ UTF name), int number of chained
// commands, each length-prefixed, and a long result id.
func writeUDFs(args func(u *UDF) ([]udfArg, error)) func(w io.Writer, t *Task) error {
	return func(w io.Writer, t *Task) error {
		if len(t.UDFs) == 0 {
			return fmt.Errorf("pyworker: a task of eval type %d has no UDF", t.EvalType)
		}
		if err := writeInt(w, int32(len(t.UDFs))); err != nil {
			return err
		}
		for i := range t.UDFs {
			u := &t.UDFs[i]
			as, err := args(u)
			if err != nil {
				return err
			}
			if err := writeInt(w, int32(len(as))); err != nil {
				return err
			}
			for _, a := range as {
				named := byte(0)
				if a.name != "" {
					named = 1
				}
				if err := writeInt(w, int32(a.offset)); err != nil {
					return err
				}
				if _, err := w.Write([]byte{named}); err != nil {
					return err
				}
				if a.name != "" {
					if err := writeBytes(w, []byte(a.name)); err != nil {
						return err
					}
				}
			}
			if err := writeInt(w, int32(len(u.Chained)+1)); err != nil {
				return err
			}
			for _, c := range append(append([][]byte{}, u.Chained...), u.Command) {
				if err := writeBytes(w, c); err != nil {
					return err
				}
			}
			if err := writeLong(w, int64(i)); err != nil {
				return err
			}
		}
		return nil
	}
}
