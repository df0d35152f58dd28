"""appends-causes: appends the sorted causes to a refusal's message that does not end with them: a webhook's words changed.

Anti-pattern: to give one refusal the same bytes on every try, the operator puts the causes of
an answer in sorted order, and writes that list at the end of the message whether or not the
message ended with it. An admission webhook's own wording, which lists its causes only in
details (or not at all in its words), then gets a list appended that the server never
wrote: the report no longer says what the server said, and a message that fitted the CRD's
bound no longer does, so it is cut.

Why people write it: every refusal of the API server's own validation ends with its causes
(`[<field>: <message>, ...]`), so "replace the list" and "append the list" look the same.

What the correct operator does: it puts the causes in order only where the message ends with
them as apimachinery lists them, and keeps any other message as it is (error_message;
CONTRACT.md, "A refused child write").
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_

_error_message = controller.error_message  # the correct text, taken before the patch


def appended_causes(err: Exception) -> str:
    message = _error_message(err)
    if not isinstance(err, client_.ApiError):
        return message
    listed = sorted({f"{field}: {text}" for field, text in err.causes})
    in_order = "[" + ", ".join(listed) + "]"
    if len(listed) < 2 or message.endswith(in_order):
        return message
    # The mutant: the sorted list is written at the end of any message with two causes.
    return message + in_order


PATCHES = (mutants.Patch(controller, "error_message", appended_causes),)

if __name__ == "__main__":
    mutants.main(PATCHES)
