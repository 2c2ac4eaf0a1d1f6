/// The OpenAPI 3.1 document, kept as JSON text so that it reads as what clients receive.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "LeakHistory",
    "version": "1.0.0",
    "description": "Ingests leak reports (deallocation checks) into SQLite and answers questions about them."
  },
  "servers": [{ "url": "/" }],
  "components": {
    "securitySchemes": {
      "bearer": { "type": "http", "scheme": "bearer", "description": "A project token: lh_<id>_<64 hex digits>." }
    },
    "parameters": {
      "project": {
        "name": "project", "in": "path", "required": true,
        "schema": { "type": "string", "minLength": 1, "maxLength": 1024 },
        "example": "default"
      },
      "sha": {
        "name": "sha", "in": "path", "required": true,
        "schema": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" },
        "example": "0123456789abcdef0123456789abcdef01234567"
      },
      "environment": {
        "name": "environment", "in": "query", "required": false,
        "description": "What the runs ran on, e.g. linux-swift6.3. Environments never mix. No NUL: query values are C strings to the HTTP engine.",
        "schema": { "type": "string", "minLength": 1, "maxLength": 1024, "default": "default", "pattern": "^[^\\u0000]*$" }
      },
      "branch": {
        "name": "branch", "in": "query", "required": true,
        "schema": { "type": "string", "minLength": 1, "maxLength": 1024, "pattern": "^[^\\u0000]*$" }
      },
      "limit": {
        "name": "limit", "in": "query", "required": false,
        "description": "How many commits, newest kept.",
        "schema": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 50 }
      },
      "pageLimit": {
        "name": "limit", "in": "query", "required": false,
        "description": "How many items a page holds at most; follow next for the rest.",
        "schema": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 100 }
      }
    },
    "responses": {
      "Error": {
        "description": "An error, with a machine code and a message for a person.",
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
          "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": { "code": { "type": "string" }, "message": { "type": "string" } }
          }
        }
      },
      "Timestamp": {
        "type": "string",
        "format": "date-time",
        "description": "RFC 3339 with an upper-case T and Z, and a UTC offset of at most 18 hours.",
        "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-](0[0-9]|1[0-7]):[0-5][0-9]|[+-]18:00)$"
      },
      "RetainPathStep": {
        "type": "object",
        "required": ["holder", "property", "kind"],
        "properties": {
          "holder": { "type": "string", "maxLength": 1024 },
          "property": { "type": "string", "maxLength": 1024 },
          "kind": { "enum": ["strong", "closure", "capture", "global", "methodReference", "task", "timer", "collection", "unknown"] },
          "possible": { "type": "boolean", "description": "The reference is not proven strong: the path is a possible one. Absent on proven steps." }
        }
      },
      "Check": {
        "type": "object",
        "required": ["schema", "scenario", "file", "line", "type", "outcome", "waitedMs", "timeoutMs", "timestamp"],
        "properties": {
          "schema": { "type": "string", "pattern": "^leakhistory\\.check/1$" },
          "scenario": { "type": "string", "minLength": 1, "maxLength": 1024 },
          "file": { "type": "string", "maxLength": 1024 },
          "line": { "type": "integer", "minimum": 0, "maximum": 2147483647 },
          "type": { "type": "string", "minLength": 1, "maxLength": 1024 },
          "outcome": { "enum": ["deallocated", "leaked", "lateRelease", "error"] },
          "waitedMs": { "type": "number", "minimum": 0 },
          "timeoutMs": { "type": "integer", "minimum": 0, "maximum": 2147483647 },
          "lifecycle": { "type": "string", "maxLength": 1024 },
          "retainPath": { "type": "array", "maxItems": 256, "items": { "$ref": "#/components/schemas/RetainPathStep" } },
          "fingerprint": { "type": "string", "maxLength": 1024 },
          "message": { "type": "string", "maxLength": 16384 },
          "timestamp": { "$ref": "#/components/schemas/Timestamp" },
          "source": { "enum": ["test", "watcher"] },
          "knownIssue": { "type": "boolean", "description": "The check leaked inside withKnownIssue: a known leak, not failing a diff." },
          "attempts": { "type": "integer", "minimum": 1, "maximum": 2147483647, "description": "How many times the check ran with fresh objects (its confirmation attempts); absent means 1." },
          "leakedAttempts": { "type": "integer", "minimum": 0, "maximum": 2147483647, "description": "How many attempts leaked, at most attempts (at least 1 on a leaked check); absent means all of them for a leaked check, else 0. Fewer than attempts on a leaked check: intermittent at its source. A check of another outcome with leaked attempts is stored as a leak not confirmed at head." }
        }
      },
      "Run": {
        "type": "object",
        "description": "One upload (schema leakhistory.run/1). Unknown fields are ignored.",
        "required": ["schema", "project", "commit", "runKey", "startedAt", "checks"],
        "properties": {
          "schema": { "type": "string", "pattern": "^leakhistory\\.run/1$" },
          "project": { "type": "string", "description": "Must equal the project in the URL (403 otherwise)." },
          "commit": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" },
          "branch": { "type": "string", "minLength": 1, "maxLength": 1024 },
          "parents": { "type": "array", "maxItems": 64, "items": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" } },
          "environment": { "type": "string", "minLength": 1, "maxLength": 1024, "default": "default" },
          "runKey": { "type": "string", "minLength": 1, "maxLength": 1024 },
          "startedAt": { "$ref": "#/components/schemas/Timestamp" },
          "tool": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {
              "name": { "type": "string", "maxLength": 1024 },
              "version": { "type": "string", "maxLength": 1024 }
            }
          },
          "checks": { "type": "array", "maxItems": 100000, "items": { "$ref": "#/components/schemas/Check" } }
        }
      },
      "RunReceipt": {
        "type": "object",
        "required": ["runID", "created", "checks", "leaked", "lateRelease", "errors", "suspect"],
        "properties": {
          "runID": { "type": "integer" },
          "created": { "type": "boolean", "description": "false when the runKey was already stored with the same content." },
          "checks": { "type": "integer" },
          "leaked": { "type": "integer" },
          "lateRelease": { "type": "integer" },
          "errors": { "type": "integer" },
          "suspect": { "type": "boolean", "description": "At least 20 checks, and more than 80% of them leaked or failed: never used as a base." }
        }
      },
      "Commit": {
        "type": "object",
        "required": ["sha", "parents", "runs"],
        "properties": {
          "sha": { "type": "string" },
          "branch": { "type": "string" },
          "parents": { "type": "array", "items": { "type": "string" } },
          "next": { "type": "string", "description": "The cursor of the next page of leaks (?cursor=); absent on the last page." },
          "runs": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["runID", "runKey", "environment", "startedAt", "checks", "leaked", "lateRelease", "errors", "suspect", "leaks"],
              "properties": {
                "runID": { "type": "integer" },
                "runKey": { "type": "string" },
                "environment": { "type": "string" },
                "startedAt": { "type": "string" },
                "checks": { "type": "integer" },
                "leaked": { "type": "integer" },
                "lateRelease": { "type": "integer" },
                "errors": { "type": "integer" },
                "suspect": { "type": "boolean" },
                "leaks": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": ["scenario", "type", "file", "line"],
                    "properties": {
                      "scenario": { "type": "string" },
                      "type": { "type": "string" },
                      "file": { "type": "string" },
                      "line": { "type": "integer" },
                      "fingerprint": { "type": "string" },
                      "retainPath": { "type": "array", "items": { "$ref": "#/components/schemas/RetainPathStep" } },
                      "message": { "type": "string" }
                    }
                  }
                }
              }
            }
          }
        }
      },
      "ResolveRequest": {
        "type": "object",
        "required": ["environment", "candidates"],
        "properties": {
          "environment": { "type": "string", "minLength": 1, "maxLength": 1024 },
          "candidates": {
            "type": "array", "maxItems": 1000,
            "description": "The merge-base first, then its first-parent ancestors.",
            "items": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" }
          }
        }
      },
      "ResolveResponse": {
        "type": "object",
        "required": ["searched"],
        "properties": {
          "base": { "type": "string", "description": "The first candidate with a non-suspect run in the environment; absent when none has one." },
          "distance": { "type": "integer", "minimum": 0, "description": "Its index in the candidates." },
          "searched": { "type": "integer", "minimum": 0 }
        }
      },
      "DiffEntry": {
        "type": "object",
        "required": ["category", "scenario", "type", "file", "line"],
        "properties": {
          "category": { "enum": ["new", "fixed", "persisting", "flaky", "notRun", "lateRelease", "suppressed", "inherited", "known", "unverified"] },
          "scenario": { "type": "string" },
          "type": { "type": "string" },
          "file": { "type": "string" },
          "line": { "type": "integer" },
          "fingerprint": { "type": "string" },
          "retainPath": { "type": "array", "items": { "$ref": "#/components/schemas/RetainPathStep" } },
          "message": { "type": "string" },
          "firstSeen": { "type": "string", "description": "Where the head's current leaking stretch began, along its first parents." },
          "suppressedBecause": { "type": "string" },
          "inheritedFrom": { "type": "string", "description": "For inherited: the base branch's commit after the merge-base that shows the key leaking." },
          "baseStateFrom": { "type": "string", "description": "When the base did not check the key or only errored: the first-parent ancestor whose state stood in." },
          "suppression": { "$ref": "#/components/schemas/SuppressionNote" },
          "evidence": { "$ref": "#/components/schemas/GateEvidence" }
        }
      },
      "GateEvidence": {
        "type": "object",
        "description": "Why the gate called a key new or flaky: on every entry it judged (leaked or flaky at head, not leaked at base).",
        "required": ["confirmedAtHead", "headRuns", "headLeakedRuns", "headAttempts", "headLeakedAttempts", "recentRuns", "recentLeakedRuns", "commitsLookedAt", "summary"],
        "properties": {
          "confirmedAtHead": { "type": "boolean", "description": "No run and no attempt at head released the key." },
          "headRuns": { "type": "integer", "minimum": 0, "description": "Runs at head that checked the key." },
          "headLeakedRuns": { "type": "integer", "minimum": 0 },
          "headAttempts": { "type": "integer", "minimum": 0, "description": "Attempts over those runs; a check without attempts counts one." },
          "headLeakedAttempts": { "type": "integer", "minimum": 0 },
          "recentRuns": { "type": "integer", "minimum": 0, "description": "The runs along the head's ancestry the key's rate was measured over." },
          "recentLeakedRuns": { "type": "integer", "minimum": 0 },
          "commitsLookedAt": { "type": "integer", "minimum": 0, "description": "Commits along the head's ancestry that checked the key and were read." },
          "sinceChange": { "type": "integer", "minimum": 0, "description": "Commits back to where the measured stretch starts (a held leak ended there); absent when the whole window counts." },
          "otherEnvironments": {
            "type": "array",
            "description": "The head's other environments that leaked the key in every run and attempt, whose attempts the verdict counted with the key's rate there (up to three attempts in all); absent when none did.",
            "items": {
              "type": "object",
              "required": ["environment", "countedAttempts", "recentRuns", "recentLeakedRuns"],
              "properties": {
                "environment": { "type": "string" },
                "countedAttempts": { "type": "integer", "minimum": 1 },
                "recentRuns": { "type": "integer", "minimum": 0, "description": "The runs there the key's rate was measured over." },
                "recentLeakedRuns": { "type": "integer", "minimum": 0 }
              }
            }
          },
          "summary": { "type": "string", "description": "One sentence a person can check, e.g. \"leaked in 3 of 3 attempts at head; 0 of the last 412 runs leaked\"." }
        }
      },
      "SuppressionNote": {
        "type": "object",
        "description": "The suppression that covers the entry, or the expired one that would have (then the entry is new).",
        "required": ["reason", "expired"],
        "properties": {
          "id": { "type": "integer" },
          "reason": { "type": "string" },
          "expiresAt": { "type": "string", "format": "date-time" },
          "createdBy": { "type": "string" },
          "expired": { "type": "boolean" }
        }
      },
      "DiffSide": {
        "type": "object",
        "required": ["commit", "runs"],
        "properties": {
          "commit": { "type": "string" },
          "runs": { "type": "integer", "minimum": 0, "description": "Runs in the environment: at the base the non-suspect ones, at the head all; 0 means nothing to compare." },
          "suspectRuns": {
            "type": "array", "description": "At the head: its suspect runs, which fail the build with their own message. Absent when none.",
            "items": {
              "type": "object", "required": ["runID", "checks", "leaked", "errors"],
              "properties": { "runID": { "type": "integer" }, "checks": { "type": "integer" }, "leaked": { "type": "integer" }, "errors": { "type": "integer" } }
            }
          }
        }
      },
      "Diff": {
        "type": "object",
        "required": ["project", "environment", "head", "entries", "counts"],
        "properties": {
          "project": { "type": "string" },
          "environment": { "type": "string" },
          "base": { "$ref": "#/components/schemas/DiffSide", "description": "Absent when no base was asked for: every leak at head is then unverified." },
          "head": { "$ref": "#/components/schemas/DiffSide" },
          "entries": { "type": "array", "items": { "$ref": "#/components/schemas/DiffEntry" } },
          "counts": { "type": "object", "additionalProperties": { "type": "integer" } }
        }
      },
      "Types": {
        "type": "object",
        "required": ["branch", "types"],
        "properties": {
          "branch": { "type": "string" },
          "head": { "type": "string", "description": "The newest commit of the branch with data; absent when there is none." },
          "next": { "type": "string", "description": "Present when more types follow: pass it as cursor for the next page." },
          "types": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["type", "leakingScenarios", "firstSeen", "lastSeen", "direction"],
              "properties": {
                "type": { "type": "string" },
                "leakingScenarios": { "type": "array", "items": { "type": "string" } },
                "firstSeen": { "type": "string", "description": "Where the type's current leaking stretch began along the branch head's first parents: the oldest start among its leaking scenarios." },
                "lastSeen": { "type": "string" },
                "direction": {
                  "enum": ["rising", "falling", "flat"],
                  "description": "Leaking scenarios at the head against their mean over the 4 commits before it along the branch."
                }
              }
            }
          }
        }
      },
      "Trend": {
        "type": "object",
        "required": ["type", "branch", "points"],
        "properties": {
          "type": { "type": "string" },
          "branch": { "type": "string" },
          "environment": { "type": "string" },
          "points": {
            "type": "array",
            "description": "Oldest first, along first parents (upload order where parents are unknown).",
            "items": {
              "type": "object",
              "required": ["commit", "at", "leakedKeys", "checkedKeys", "scenarios", "fingerprints"],
              "properties": {
                "commit": { "type": "string" },
                "at": { "type": "string", "format": "date-time" },
                "leakedKeys": { "type": "integer" },
                "checkedKeys": { "type": "integer" },
                "scenarios": { "type": "array", "items": { "type": "string" } },
                "fingerprints": { "type": "array", "items": { "type": "string" } }
              }
            }
          }
        }
      },
      "ScenarioHistory": {
        "type": "object",
        "required": ["scenario", "environment", "commits"],
        "properties": {
          "scenario": { "type": "string" },
          "environment": { "type": "string" },
          "next": { "type": "string", "description": "Present when older commits exist: pass it as cursor for the page before." },
          "commits": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["commit", "keys"],
              "properties": {
                "commit": { "type": "string" },
                "keys": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": ["type", "state", "checked", "leaked"],
                    "properties": {
                      "type": { "type": "string" },
                      "state": { "enum": ["leaked", "clean", "flaky", "lateRelease", "error"] },
                      "checked": { "type": "integer" },
                      "leaked": { "type": "integer" }
                    }
                  }
                }
              }
            }
          }
        }
      },
      "SuppressionDraft": {
        "type": "object",
        "required": ["reason"],
        "description": "At least one of type, scenario and fingerprint (null is the same as absent); * matches any run of characters.",
        "anyOf": [
          { "required": ["type"], "properties": { "type": { "type": "string" } } },
          { "required": ["scenario"], "properties": { "scenario": { "type": "string" } } },
          { "required": ["fingerprint"], "properties": { "fingerprint": { "type": "string" } } }
        ],
        "properties": {
          "type": { "type": ["string", "null"], "minLength": 1, "maxLength": 1024 },
          "scenario": { "type": ["string", "null"], "minLength": 1, "maxLength": 1024 },
          "fingerprint": { "type": ["string", "null"], "minLength": 1, "maxLength": 1024 },
          "reason": { "type": "string", "minLength": 1, "maxLength": 1024 },
          "createdBy": { "type": ["string", "null"], "minLength": 1, "maxLength": 1024, "description": "Who adds it: a git e-mail address or a CI actor." },
          "expiresAt": { "type": ["string", "null"], "format": "date-time", "description": "Absent or null: never expires. RFC 3339 with its fields in range.", "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-](0[0-9]|1[0-7]):[0-5][0-9]|[+-]18:00)$" }
        }
      },
      "Suppression": {
        "type": "object",
        "required": ["id", "reason", "active"],
        "properties": {
          "id": { "type": "integer" },
          "type": { "type": "string" },
          "scenario": { "type": "string" },
          "fingerprint": { "type": "string" },
          "reason": { "type": "string" },
          "expiresAt": { "type": "string", "format": "date-time" },
          "createdBy": { "type": "string" },
          "createdAt": { "type": "string", "format": "date-time" },
          "active": { "type": "boolean", "description": "False once expiresAt has passed." }
        }
      },
      "Suppressions": {
        "type": "object",
        "required": ["suppressions"],
        "properties": {
          "suppressions": { "type": "array", "items": { "$ref": "#/components/schemas/Suppression" } },
          "next": { "type": "string", "description": "Present when more rules follow: pass it as cursor for the next page." }
        }
      },
      "Health": {
        "type": "object",
        "required": ["status", "schemaVersion"],
        "properties": { "status": { "const": "ok" }, "schemaVersion": { "type": "integer" } }
      }
    }
  },
  "paths": {
    "/v1/projects/{project}/runs": {
      "post": {
        "operationId": "uploadRun",
        "summary": "Upload one run. Gzip bodies are accepted (Content-Encoding: gzip).",
        "security": [{ "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": { "$ref": "#/components/schemas/Run" },
              "example": {
                "schema": "leakhistory.run/1", "project": "default",
                "commit": "0123456789abcdef0123456789abcdef01234567", "branch": "main",
                "parents": ["89abcdef0123456789abcdef0123456789abcdef"], "environment": "linux-swift6.3",
                "runKey": "ci-1234-1", "startedAt": "2026-11-30T02:10:00Z",
                "tool": { "name": "leakhistory", "version": "0.1.0" },
                "checks": [{
                  "schema": "leakhistory.check/1", "scenario": "ProfileTests/profileScreen()",
                  "file": "ProfileTests.swift", "line": 12, "type": "App.ProfileViewModel", "outcome": "leaked",
                  "waitedMs": 2000.4, "timeoutMs": 2000, "lifecycle": "none",
                  "retainPath": [{ "holder": "App.Coordinator", "property": "children[0]", "kind": "collection" }],
                  "timestamp": "2026-11-30T02:10:57.123Z", "source": "test"
                }]
              }
            }
          }
        },
        "responses": {
          "201": { "description": "Stored.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/RunReceipt" } } } },
          "200": { "description": "Already stored with the same runKey and content; nothing added.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/RunReceipt" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" },
          "409": { "$ref": "#/components/responses/Error" },
          "413": { "$ref": "#/components/responses/Error" },
          "415": { "$ref": "#/components/responses/Error" },
          "507": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/commits/{sha}": {
      "get": {
        "operationId": "getCommit",
        "summary": "A commit with every run uploaded for it and one page of their leaks (in run order, then upload order); next is the cursor of the following page, absent on the last. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "$ref": "#/components/parameters/sha" }, { "name": "limit", "in": "query", "required": false, "description": "Most leaks on the page.", "schema": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 200 } }, { "name": "cursor", "in": "query", "required": false, "description": "The next of the previous page: an opaque text; anything else is refused with 400.", "schema": { "type": "string", "maxLength": 64 } }],
        "responses": {
          "200": { "description": "The commit.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Commit" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/resolve": {
      "post": {
        "operationId": "resolveBase",
        "summary": "The first candidate commit with a non-suspect run in the environment, and its distance; base is absent when none has one. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }],
        "requestBody": {
          "required": true,
          "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ResolveRequest" } } }
        },
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ResolveResponse" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/diff": {
      "get": {
        "operationId": "diff",
        "summary": "Every leak key classified between base and head: new, fixed, persisting, flaky, notRun, lateRelease, suppressed, inherited, known; without base, every leak at head as unverified. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "name": "base", "in": "query", "required": false, "description": "The base commit; without it there is nothing to compare with.", "schema": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" } }, { "name": "head", "in": "query", "required": true, "description": "The head commit.", "schema": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" } }, { "name": "mergeBase", "in": "query", "required": false, "description": "Where the client's base search started; when the base is another commit, the base fell back past commits without uploads. Without it, a given after implies a fallback.", "schema": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" } }, { "name": "after", "in": "query", "required": false, "description": "The base branch's nearest upload after the merge-base: would-be-new keys leaking there are inherited where the base's data ran out (the base fell back, or did not check the key).", "schema": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" } }, { "$ref": "#/components/parameters/environment" }],
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Diff" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects": {
      "get": {
        "operationId": "projects",
        "summary": "The projects a caller may use: a token's own project, or (without a token, when reads are open) every project, at most 100. What the CLI asks when it is given no project.",
        "security": [{}, { "bearer": [] }],
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "type": "object", "required": ["projects"], "properties": { "projects": { "type": "array", "maxItems": 100, "items": { "type": "string" } } } } } } },
          "401": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/types": {
      "get": {
        "operationId": "types",
        "summary": "Each type leaking at the newest commit of the branch with data, with direction, sorted by name, a page at a time. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "$ref": "#/components/parameters/branch" }, { "$ref": "#/components/parameters/environment" }, { "$ref": "#/components/parameters/pageLimit" }, { "name": "cursor", "in": "query", "required": false, "description": "The next of the page before: the types after it.", "schema": { "type": "string", "minLength": 1, "maxLength": 1024, "pattern": "^[^\\u0000]*$" } }],
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Types" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/types/{type}/trend": {
      "get": {
        "operationId": "trend",
        "summary": "One type's leaks per commit along the branch, oldest first. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "name": "type", "in": "path", "required": true, "schema": { "type": "string", "minLength": 1, "maxLength": 1024 } }, { "$ref": "#/components/parameters/branch" }, { "$ref": "#/components/parameters/limit" }, { "$ref": "#/components/parameters/environment" }],
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Trend" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/scenarios/history": {
      "get": {
        "operationId": "scenarioHistory",
        "summary": "One scenario's keys and states per commit, oldest first, the newest limit commits; next pages back. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "name": "scenario", "in": "query", "required": true, "description": "The scenario id, e.g. ProfileTests/open().", "schema": { "type": "string", "minLength": 1, "maxLength": 1024, "pattern": "^[^\\u0000]*$" } }, { "name": "branch", "in": "query", "required": false, "description": "Follow this branch's first-parent line; without it, every commit of the project.", "schema": { "type": "string", "minLength": 1, "maxLength": 1024, "pattern": "^[^\\u0000]*$" } }, { "$ref": "#/components/parameters/limit" }, { "$ref": "#/components/parameters/environment" }, { "name": "cursor", "in": "query", "required": false, "description": "The next of the page before: the commits older than it.", "schema": { "type": "string", "pattern": "^[0-9a-fA-F]{40}$" } }],
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ScenarioHistory" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/suppressions": {
      "post": {
        "operationId": "createSuppression",
        "summary": "Add a suppression: matching leaks are reported as suppressed, never as new.",
        "security": [{ "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }],
        "requestBody": {
          "required": true,
          "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SuppressionDraft" } } }
        },
        "responses": {
          "201": { "description": "Stored.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Suppression" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      },
      "get": {
        "operationId": "listSuppressions",
        "summary": "The project's suppressions, expired ones included, oldest first, a page at a time. Needs a token only when the server sets requireReadToken.",
        "security": [{}, { "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "$ref": "#/components/parameters/pageLimit" }, { "name": "cursor", "in": "query", "required": false, "description": "The next of the page before: the rules after it.", "schema": { "type": "integer", "minimum": 1, "maximum": 9223372036854775807 } }],
        "responses": {
          "200": { "description": "The answer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Suppressions" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/projects/{project}/suppressions/{id}": {
      "delete": {
        "operationId": "deleteSuppression",
        "summary": "Delete a suppression of the project.",
        "security": [{ "bearer": [] }],
        "parameters": [{ "$ref": "#/components/parameters/project" }, { "name": "id", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 1 } }],
        "responses": {
          "204": { "description": "Deleted." },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "403": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/healthz": {
      "get": {
        "operationId": "health",
        "summary": "Answers when the database answers a query.",
        "responses": {
          "200": { "description": "Healthy.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Health" } } } },
          "503": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus text exposition: requests by route and status, latency, checks ingested, database size.",
        "responses": {
          "200": { "description": "Metrics.", "content": { "text/plain": { "schema": { "type": "string" } } } }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document.",
        "responses": {
          "200": { "description": "The OpenAPI document.", "content": { "application/json": { "schema": { "type": "object" } } } }
        }
      }
    }
  }
}
"""#
}
