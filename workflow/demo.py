"""Built-in demo executors and the demo ``records-archival`` sub-workflow.

They let the fixtures run end to end without real agents or tools: each demo executor
returns a fixed, plausible output (so conditions take the happy path), and
``records-archival`` is the sub-workflow ``document-processing`` starts.

>>> demo_executors().get("malware-scanner")({})
{'clean': True}
"""

from __future__ import annotations

from collections.abc import Mapping

from workflow.dsl import Definition, load_definition_text
from workflow.executors import Executor, ExecutorRegistry
from workflow.model import Json

DEMO_OUTPUTS: Mapping[str, Json] = {
    # document-processing
    "document-intake": {"documentId": "doc-1", "pages": 3},
    "malware-scanner": {"clean": True},
    "quarantine-store": {"quarantined": True},
    "doc-classifier": {"type": "invoice"},
    "invoice-extractor": {"total": 120.5, "currency": "EUR"},
    "contract-extractor": {"parties": 2},
    "vendor-registry": {"vendor": "ACME", "confidence": 0.95},
    "tax-validator": {"taxValid": True, "confidence": 0.95},
    "duplicate-detector": {"duplicate": False, "confidence": 0.95},
    "erp-connector": {"posted": True, "erpId": "erp-1"},
    "notifier": {"notified": True},
    "audit-journal": {"journaled": True},
    "archive-store": {"archived": True},
    # repository-assessment
    "triage-agent": {"category": "service"},
    "knowledge-search": {"documents": 4},
    "repository-assessor": {"confidence": 0.85},
    "change-proposer": {"proposal": "pr-1"},
    "retract-proposal": {"retracted": True},
}

RECORDS_ARCHIVAL = """
workflow: records-archival
version: 1.0.0
steps:
  - { id: store,  kind: Tool, tool: archive-store, failurePolicy: Retry, maxAttempts: 3 }
  - { id: record, kind: Tool, tool: audit-journal, failurePolicy: Retry, maxAttempts: 3 }
edges:
  - { from: store, to: record }
"""


def _fixed(output: Json) -> Executor:
    def executor(payload: Json) -> Json:
        return output

    return executor


def demo_executors() -> ExecutorRegistry:
    """A registry answering every tool and agent of the fixtures with a fixed output."""
    return ExecutorRegistry({name: _fixed(output) for name, output in DEMO_OUTPUTS.items()})


def demo_definitions() -> tuple[Definition, ...]:
    """Definitions the demo set-up registers besides the user's (sub-workflows)."""
    return (load_definition_text(RECORDS_ARCHIVAL),)
