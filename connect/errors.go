package connect

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	// maxErrorMessage is where Spark abbreviates the status message (StringUtils.abbreviate).
	maxErrorMessage = 2048
	// maxParamsMetadata bounds the messageParameters metadata (spark.connect.grpc.maxMetadataSize).
	maxParamsMetadata = 1024
	errorDomain       = "org.apache.spark"
)

// sparkError returns err as a *sparkerr.Error: the outermost one in its chain, or an
// INTERNAL_ERROR wrapping it.
func sparkError(err error) *sparkerr.Error {
	if se, ok := sparkerr.As(err); ok {
		return se
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return operationCanceled().Wrap(err)
	}
	return sparkerr.Internal("%v", err).Wrap(err)
}

// abbreviate cuts s to at most max bytes the way Spark does: a prefix and "...".
func abbreviate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// displayMessage is e's message as Spark shows it: Spark omits the "[CLASS] " prefix for its
// _LEGACY_ERROR_* classes (SparkThrowableHelper.getMessage).
func displayMessage(e *sparkerr.Error) string {
	if strings.HasPrefix(e.Class, "_LEGACY_ERROR_") {
		return strings.TrimPrefix(e.Error(), "["+e.Class+"] ")
	}
	return e.Error()
}

// grpcCode is the status code a Spark error travels with.
func grpcCode(se *sparkerr.Error) codes.Code {
	switch se.JavaClass {
	case sparkSecurityException:
		return codes.PermissionDenied
	}
	return codes.Internal
}

// toStatus is the one place an error becomes a gRPC status. Errors that already are statuses
// (auth, cancellation of the RPC itself) pass through. sess, when not nil, remembers the error
// for FetchErrorDetails under the errorId put into the ErrorInfo.
func toStatus(sess *session, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	se := sparkError(err)
	md := map[string]string{}
	classes, _ := json.Marshal(se.Classes())
	md["classes"] = string(classes)
	if se.Class != "" {
		md["errorClass"] = se.Class
	}
	if se.SQLState != "" {
		md["sqlState"] = se.SQLState
	}
	if len(se.Params) > 0 {
		params, _ := json.Marshal(se.Params)
		if len(params) <= maxParamsMetadata {
			md["messageParameters"] = string(params)
		}
	}
	if sess != nil {
		md["errorId"] = sess.errors.put(se)
	}
	info := &errdetails.ErrorInfo{Reason: se.Classes()[0], Domain: errorDomain, Metadata: md}
	st := status.New(grpcCode(se), abbreviate(displayMessage(se), maxErrorMessage))
	if withInfo, derr := st.WithDetails(info); derr == nil {
		st = withInfo
	}
	return st.Err()
}

// errorStore keeps a session's recent errors by errorId for FetchErrorDetails.
type errorStore struct {
	mu    sync.Mutex
	max   int
	order *list.List // of string ids, oldest first
	byID  map[string]*sparkerr.Error
}

func newErrorStore(max int) *errorStore {
	return &errorStore{max: max, order: list.New(), byID: map[string]*sparkerr.Error{}}
}

func (s *errorStore) put(e *sparkerr.Error) string {
	id := newUUID()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[id] = e
	s.order.PushBack(id)
	for s.order.Len() > s.max {
		oldest := s.order.Front()
		s.order.Remove(oldest)
		delete(s.byID, oldest.Value.(string))
	}
	return id
}

// take returns and forgets the error with id (Spark drops an error once fetched).
func (s *errorStore) take(id string) (*sparkerr.Error, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	delete(s.byID, id)
	for el := s.order.Front(); el != nil; el = el.Next() {
		if el.Value.(string) == id {
			s.order.Remove(el)
			break
		}
	}
	return e, true
}

// maxCauses bounds how many causes FetchErrorDetails reports.
const maxCauses = 8

// errorDetails renders e and its causes as FetchErrorDetailsResponse errors, root first.
func errorDetails(e *sparkerr.Error) []*pb.FetchErrorDetailsResponse_Error {
	var out []*pb.FetchErrorDetailsResponse_Error
	var cur error = e
	for cur != nil && len(out) < maxCauses {
		d := &pb.FetchErrorDetailsResponse_Error{Message: cur.Error()}
		if se, ok := cur.(*sparkerr.Error); ok {
			d.Message = displayMessage(se)
		}
		var next error
		if se, ok := cur.(*sparkerr.Error); ok {
			d.ErrorTypeHierarchy = se.Classes()
			st := &pb.FetchErrorDetailsResponse_SparkThrowable{MessageParameters: map[string]string{}}
			if se.Class != "" {
				st.ErrorClass = &se.Class
			}
			if se.SQLState != "" {
				st.SqlState = &se.SQLState
			}
			keys := make([]string, 0, len(se.Params))
			for k := range se.Params {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				st.MessageParameters[k] = se.Params[k]
			}
			d.SparkThrowable = st
			next = se.Cause
		} else {
			d.ErrorTypeHierarchy = []string{"java.lang.Throwable"}
			next = errors.Unwrap(cur)
		}
		if len(out) > 0 {
			idx := int32(len(out))
			out[len(out)-1].CauseIdx = &idx
		}
		out = append(out, d)
		cur = next
	}
	return out
}
