#!/usr/bin/env bash
# The README's curl walkthrough, run against a gateway at $BASE whose first admin has $ADMIN_PASSWORD.
# Each step checks what a QA engineer would look at; the first mismatch ends the script with its reason.
set -euo pipefail
: "${BASE:?}" "${ADMIN_PASSWORD:?}" "${LOGO:?}" "${FIXTURES:?}"
work=$(mktemp -d)
# KILL, not TERM: a parent that ignores SIGTERM (a service manager, a test runner) passes that on to these curls.
trap 'kill -KILL $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# curl that prints the body and fails the script unless the status is the expected one.
call() {
    local expected=$1; shift
    local status
    status=$(curl -sS -o "$work/body" -w '%{http_code}' "$@")
    [ "$status" = "$expected" ] || fail "curl $* answered $status, expected $expected: $(cat "$work/body")"
    cat "$work/body"
}
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
wait_for() {
    local file=$1 pattern=$2
    for _ in $(seq 1 100); do grep -q -- "$pattern" "$file" 2>/dev/null && return 0; sleep 0.1; done
    fail "$file never showed $pattern: $(cat "$file")"
}

admin=(-u "admin:$ADMIN_PASSWORD")
mark=(-u mark:mark-password)
alice=(-u alice:alice-password)

call 201 "${admin[@]}" -d '{"username":"mark","password":"mark-password","role":"marketer"}' "$BASE/api/users" >/dev/null
call 201 "${admin[@]}" -d '{"username":"alice","password":"alice-password","role":"member"}' "$BASE/api/users" >/dev/null
call 409 "${admin[@]}" -d '{"username":"alice","password":"alice-password","role":"member"}' "$BASE/api/users" >/dev/null
call 401 "$BASE/api/users/me" >/dev/null
[ "$(call 200 "${alice[@]}" "$BASE/api/users/me" | field '["role"]')" = member ] || fail "alice is not a member"

call 201 "${alice[@]}" -X PUT -d '{"platform":"direct","pushChannel":"laptop","tags":["topic:sale"]}' "$BASE/api/installations/laptop" >/dev/null
call 201 "${alice[@]}" -X PUT -d '{"platform":"direct","pushChannel":"desktop"}' "$BASE/api/installations/desktop" >/dev/null

curl -sN "${alice[@]}" "$BASE/api/me/stream?installationId=laptop" >"$work/laptop" &
curl -sN "${alice[@]}" "$BASE/api/me/stream?installationId=desktop" >"$work/desktop" &
wait_for "$work/laptop" "retry:"
wait_for "$work/desktop" "retry:"

# The tutorial: no body, the bundled logo to the caller.
tutorial=$(call 200 "${alice[@]}" -X POST "$BASE/api/notifications" | field '["id"]')
wait_for "$work/laptop" "\"richId\":\"$tutorial\""
wait_for "$work/desktop" "\"richId\":\"$tutorial\""
grep -q '"richMessage":"Check this image out!"' "$work/laptop" || fail "the rich event lacks the tutorial's message"
curl -sS -f "${alice[@]}" -o "$work/payload.png" "$BASE/api/notifications/$tutorial"
cmp -s "$work/payload.png" "$LOGO" || fail "the payload is not img/logo.png"
etag=$(curl -sS -D - -o /dev/null "${alice[@]}" "$BASE/api/notifications/$tutorial" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
[ -n "$etag" ] || fail "the payload has no ETag"
call 304 "${alice[@]}" -H "If-None-Match: $etag" "$BASE/api/notifications/$tutorial" >/dev/null

# A marketer's campaign.
# The tutorial's POST stored the logo already: the same bytes are the same image, answered with 200.
logo=$(call 200 "${mark[@]}" -H 'Content-Type: image/png' --data-binary "@$LOGO" "$BASE/api/images" | field '["id"]')
[ "$(call 200 "${alice[@]}" "$BASE/api/notifications/$tutorial/info" | field '["imageId"]')" = "$logo" ] || fail "the logo was stored twice"
image=$(call 201 "${mark[@]}" -F "file=@$FIXTURES/valid-rgba.png;type=image/png" "$BASE/api/images" | field '["id"]')
head -c 100 "$LOGO" >"$work/truncated.png"
call 422 "${mark[@]}" -H 'Content-Type: image/png' --data-binary "@$work/truncated.png" "$BASE/api/images" >/dev/null
call 400 "${mark[@]}" -d '{"message":"x","richType":"text","text":"x","audience":"topic:sale &&"}' "$BASE/api/notifications" >/dev/null
campaign=$(call 201 "${mark[@]}" -d "{\"message\":\"Winter sale\",\"richType\":\"img\",\"imageId\":$image,\"audience\":\"topic:sale && !lang:fr\"}" \
    "$BASE/api/notifications" | field '["id"]')
wait_for "$work/laptop" "\"richId\":\"$campaign\""
sleep 0.5
grep -q "\"richId\":\"$campaign\"" "$work/desktop" && fail "the desktop, which does not follow sales, got the campaign"
for _ in $(seq 1 50); do
    state=$(call 200 "${mark[@]}" "$BASE/api/notifications/$campaign/status" | field '["state"]')
    [ "$state" = delivered ] && break
    sleep 0.1
done
[ "$state" = delivered ] || fail "the campaign is $state, not delivered"
link=$(call 200 "${alice[@]}" "$BASE/api/notifications/$campaign/info" | field '["payloadUrl"]')
call 200 -o /dev/null "$BASE$link" >/dev/null
[ "$(call 200 "${mark[@]}" "$BASE/api/notifications?limit=20" | field '["items"][0]["id"]')" = "$campaign" ] || fail "the list is not newest first"

# State syncs across devices.
call 200 "${alice[@]}" -X PATCH -d '{"readState":"read","userActionState":"dismissed"}' "$BASE/api/me/notifications/$tutorial" >/dev/null
wait_for "$work/desktop" '"readState":"read","richId":"'"$tutorial"'","userActionState":"dismissed"'
call 201 "${alice[@]}" -d '{"installationId":"laptop","event":"displayed"}' "$BASE/api/me/notifications/$tutorial/receipts" >/dev/null
status=$(call 200 "${alice[@]}" "$BASE/api/notifications/$tutorial/status")
[ "$(echo "$status" | field '["displayed"]')" = 1 ] || fail "displayed is not 1: $status"
[ "$(echo "$status" | field '["dismissed"]')" = 1 ] || fail "dismissed is not 1: $status"
[ "$(echo "$status" | field '["fetched"]')" = 1 ] || fail "fetched is not 1: $status"
call 200 "${alice[@]}" "$BASE/api/me/notifications?since=0" | grep -q '"readState":"read"' || fail "the feed does not show the read state"

# Recall.
call 204 "${mark[@]}" -X DELETE "$BASE/api/notifications/$campaign" >/dev/null
wait_for "$work/laptop" "event: deleted"
call 410 "${alice[@]}" "$BASE/api/notifications/$campaign" >/dev/null

# Bad input answers JSON errors.
call 400 "${alice[@]}" "$BASE/api/notifications/abc" | grep -q '"code":"request.invalidId"' || fail "abc is not an invalid id"
call 403 "${alice[@]}" -d '{"message":"x","richType":"text","text":"x","audience":"username:mark"}' "$BASE/api/notifications" >/dev/null
echo "walkthrough passed"
