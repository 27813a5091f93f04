// Segments as the console writes and recognises them: protected tags that marketers and admins put users in, and
// that every installation of the user then carries. The gateway's prefix is `segment:` unless it was started with
// other --protected-tag-prefixes, which the API does not tell; the console knows the default only.
export const segmentPrefix = 'segment:';

/** Whether a device's tag is one of its owner's segments, rather than one the device set itself. */
export function isSegment(tag) {
  // The gateway compares protected prefixes without regard to case.
  return tag.toLowerCase().startsWith(segmentPrefix);
}

/** The tag for what a person typed: `vip` and `segment:vip` both mean `segment:vip`. The gateway judges the rest. */
export function segmentTag(text) {
  const typed = text.trim();
  return isSegment(typed) ? typed : `${segmentPrefix}${typed}`;
}
