// Errors of the protobuf codec. They are separate classes: a bad payload is the client's fault (400),
// an unsupported kind is a representation the server cannot offer (406 / 415).

/** The bytes are not a valid Kubernetes protobuf payload (missing prefix, malformed message), or a value
 * in the object does not fit its protobuf field. */
export class ProtobufError extends Error {
  override name = "ProtobufError";
}

/** The kind has no protobuf message (custom resources, Table, unknown groups). */
export class ProtobufUnsupported extends Error {
  override name = "ProtobufUnsupported";
}
