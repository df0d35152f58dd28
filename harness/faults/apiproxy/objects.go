package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
)

// Reading a few fields of Kubernetes objects, in JSON or in Kubernetes protobuf, without the
// Kubernetes libraries: a write's metadata.resourceVersion, and the Status of a watch ERROR event.

// protobufMagic starts every Kubernetes protobuf object: then a runtime.Unknown envelope whose
// field 2 holds the object's own bytes.
var protobufMagic = []byte("k8s\x00")

// pbField returns the first field num of the protobuf message buf: its bytes if it is
// length-delimited (wire type 2), its value in n if it is a varint (wire type 0).
func pbField(buf []byte, num uint64) (data []byte, n uint64, ok bool) {
	for len(buf) > 0 {
		key, k := binary.Uvarint(buf)
		if k <= 0 {
			return nil, 0, false
		}
		buf = buf[k:]
		field, wire := key>>3, key&7
		switch wire {
		case 0:
			v, k := binary.Uvarint(buf)
			if k <= 0 {
				return nil, 0, false
			}
			buf = buf[k:]
			if field == num {
				return nil, v, true
			}
		case 1:
			if len(buf) < 8 {
				return nil, 0, false
			}
			buf = buf[8:]
		case 2:
			l, k := binary.Uvarint(buf)
			if k <= 0 || uint64(len(buf)-k) < l {
				return nil, 0, false
			}
			data := buf[k : k+int(l)]
			buf = buf[k+int(l):]
			if field == num {
				return data, 0, true
			}
		case 5:
			if len(buf) < 4 {
				return nil, 0, false
			}
			buf = buf[4:]
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// pbPath follows length-delimited fields nums from buf.
func pbPath(buf []byte, nums ...uint64) ([]byte, bool) {
	for _, num := range nums {
		data, _, ok := pbField(buf, num)
		if !ok {
			return nil, false
		}
		buf = data
	}
	return buf, true
}

// unwrapProtobuf returns the object bytes inside a Kubernetes protobuf envelope.
func unwrapProtobuf(raw []byte) ([]byte, bool) {
	if !bytes.HasPrefix(raw, protobufMagic) {
		return nil, false
	}
	return pbPath(raw[len(protobufMagic):], 2)
}

// bodyResourceVersion is metadata.resourceVersion of a request body: a JSON object (any JSON
// content type, merge and strategic-merge patches included) or a Kubernetes protobuf object
// (metadata is field 1 of every object, resourceVersion field 6 of ObjectMeta). "" when the
// body names none or cannot be read (a JSON patch, an apply patch in YAML).
func bodyResourceVersion(contentType string, body []byte) string {
	rv, _ := bodyMeta(contentType, body)
	return rv
}

// bodyMeta is metadata.resourceVersion and metadata.name of a request body (see
// bodyResourceVersion); a create names its object only there, and the audit log names it so.
func bodyMeta(contentType string, body []byte) (rv, name string) {
	if strings.Contains(strings.ToLower(contentType), "protobuf") {
		obj, ok := unwrapProtobuf(body)
		if !ok {
			return "", ""
		}
		meta, ok := pbPath(obj, 1)
		if !ok {
			return "", ""
		}
		r, _, _ := pbField(meta, 6)
		n, _, _ := pbField(meta, 1)
		return string(r), string(n)
	}
	var doc struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			Name            string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return "", ""
	}
	return doc.Metadata.ResourceVersion, doc.Metadata.Name
}

// watchErrorStatus reads code, reason and message of the Status in a watch ERROR event, one
// frame as cut by nextFrame. JSON: {"type":"ERROR","object":{"kind":"Status",...,"code":410}}.
// Protobuf: metav1.WatchEvent field 2 (object, a RawExtension; its field 1 the raw bytes, a
// Kubernetes protobuf Status: reason 4, message 3, code 6). Zero values if unreadable.
func watchErrorStatus(framing string, frame []byte) (int, string, string) {
	switch framing {
	case framingJSON:
		var ev struct {
			Object struct {
				Code    int    `json:"code"`
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"object"`
		}
		if json.Unmarshal(frame, &ev) != nil {
			return 0, "", ""
		}
		return ev.Object.Code, ev.Object.Reason, ev.Object.Message
	case framingProtobuf:
		if len(frame) < 4 {
			return 0, "", ""
		}
		raw, ok := pbPath(frame[4:], 2, 1)
		if !ok {
			return 0, "", ""
		}
		status, ok := unwrapProtobuf(raw)
		if !ok {
			return 0, "", ""
		}
		_, code, _ := pbField(status, 6)
		reason, _, _ := pbField(status, 4)
		message, _, _ := pbField(status, 3)
		return int(int32(code)), string(reason), string(message)
	}
	return 0, "", ""
}

// EventMeta is what the request log says of one watch event: its type and the object's kind,
// namespace, name and resourceVersion ("" where unreadable).
type EventMeta struct {
	Type, Kind, Namespace, Name, RV string
}

// key names the object of an event for coalescing: "" when the event names none (BOOKMARK,
// ERROR, unreadable), so it is never merged.
func (m EventMeta) key() string {
	switch m.Type {
	case "ADDED", "MODIFIED", "DELETED":
		if m.Name != "" {
			return m.Namespace + "/" + m.Name
		}
	}
	return ""
}

// jsonEvent is a JSON watch event with its object left raw.
type jsonEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// eventMeta reads type, kind, namespace, name and resourceVersion of one frame as cut by
// nextFrame. Protobuf: metav1.WatchEvent field 2 (RawExtension, its field 1 the raw bytes: a
// Kubernetes protobuf envelope, runtime.Unknown, field 1 TypeMeta with kind in field 2, field 2
// the object, whose field 1 is ObjectMeta: name 1, namespace 3, resourceVersion 6).
func eventMeta(framing string, frame []byte) EventMeta {
	switch framing {
	case framingJSON:
		var ev jsonEvent
		if json.Unmarshal(frame, &ev) != nil {
			return EventMeta{}
		}
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name            string `json:"name"`
				Namespace       string `json:"namespace"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(ev.Object, &obj)
		return EventMeta{Type: ev.Type, Kind: obj.Kind, Namespace: obj.Metadata.Namespace,
			Name: obj.Metadata.Name, RV: obj.Metadata.ResourceVersion}
	case framingProtobuf:
		m := EventMeta{Type: eventType(framing, frame)}
		if len(frame) < 4 {
			return m
		}
		raw, ok := pbPath(frame[4:], 2, 1)
		if !ok || !bytes.HasPrefix(raw, protobufMagic) {
			return m
		}
		envelope := raw[len(protobufMagic):]
		if kind, ok := pbPath(envelope, 1, 2); ok {
			m.Kind = string(kind)
		}
		if meta, ok := pbPath(envelope, 2, 1); ok {
			name, _, _ := pbField(meta, 1)
			ns, _, _ := pbField(meta, 3)
			rv, _, _ := pbField(meta, 6)
			m.Name, m.Namespace, m.RV = string(name), string(ns), string(rv)
		}
		return m
	}
	return EventMeta{Type: eventType(framing, frame)}
}

// retypeJSONEvent rewrites a JSON watch event frame with another type, the object unchanged.
func retypeJSONEvent(frame []byte, typ string) ([]byte, bool) {
	var ev jsonEvent
	if json.Unmarshal(frame, &ev) != nil {
		return nil, false
	}
	ev.Type = typ
	out, err := json.Marshal(ev)
	if err != nil {
		return nil, false
	}
	return append(out, '\n'), true
}
