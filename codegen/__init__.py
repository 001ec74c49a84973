"""Framework-free code-generation core: meta-code, the draft loop, validation and the sandbox.

Never imports ``cat`` or ``memory``: what it needs from them it declares in ``ports``. This is
the package's one entry point: the glue (``app/``) imports its public names from here, never
from its modules. The names resolve lazily and are never cached here (``llm/exports.py`` says
why): importing the package has no side effects, and after the Cat re-imports the plugin every
name is the current import's. The ``TYPE_CHECKING`` block gives the type checker the same
names; a test keeps it equal to ``_EXPORTS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..llm.exports import lazy_exports

_EXPORTS: dict[str, str] = {
    # errors
    "CodegenError": ".errors",
    "IllegalTransition": ".errors",
    "MetaCodeInvalid": ".errors",
    # the draft run's defaults (one table)
    "DRAFT_RUN_DEFAULTS": ".defaults",
    # reading messages: commands, requests, questions, replies
    "Command": ".commands",
    "Found": ".commands",
    "claimed": ".commands",
    "detect_command": ".commands",
    "Detection": ".intent",
    "Intent": ".intent",
    "detect_intent": ".intent",
    "parse_tie_break": ".intent",
    "tie_break_prompt": ".intent",
    "RequestDetails": ".intent_details",
    "extract_details": ".intent_details",
    "candidate_names": ".intent_signals",
    "is_file_name": ".known_code",
    "target_words": ".target_link",
    "Aside": ".replies",
    "ReplyIntent": ".replies",
    "classify_reply": ".replies",
    "is_resume": ".replies",
    "reply_aside": ".replies",
    "waiting_line": ".replies",
    "Utterance": ".utterance",
    "read_utterance": ".utterance",
    # a task's phases and its meta-code
    "CodegenPhase": ".phases",
    "PhaseMachine": ".phases",
    "MetaCode": ".metacode",
    "generate_metacode": ".metacode",
    # the draft loop
    "Committed": ".loop",
    "DRAFT_NAME": ".loop",
    "GaveUp": ".loop",
    "run_draft_loop": ".loop",
    "run_prepared_draft": ".loop",
    "LoopConfig": ".loop_state",
    "LoopDeps": ".loop_state",
    "ProgressEvent": ".loop_state",
    "ExtendedConfig": ".extended",
    "LoopStatus": ".outcomes",
    "API_REFERENCE": ".ports",
    "ContextSnippet": ".ports",
    "EpisodeRecord": ".ports",
    "Notes": ".ports",
    "apply_reply": ".edits.api",
    "judge_draft": ".judge",
    "FileDiff": ".diffs",
    "file_diffs": ".diffs",
    "render_diffs": ".diffs",
    # renames and moves by structure
    "Refused": ".refactor.edits",
    "move_symbol": ".refactor.move",
    "rename_symbol": ".refactor.rename",
    "rename_reading": ".refactor.reading",
    "MoveRequest": ".refactor.request",
    "RenameRequest": ".refactor.request",
    "read_structural": ".refactor.request",
    "apply_request": ".refactor.task",
    "structural_metacode": ".refactor.task",
    # validation and the sandbox
    "validate_draft": ".validate",
    "select_related_tests": ".related_tests",
    "CheckResult": ".report",
    "ValidationReport": ".report",
    "run_in_sandbox": ".sandbox.api",
    "sandbox_capabilities": ".sandbox.api",
    "SANDBOX_LAUNCHER": ".sandbox.run",
    "SandboxResult": ".sandbox.run",
    "Protection": ".sandbox.protect",
    "Protections": ".sandbox.protect",
    "SandboxPolicy": ".sandbox.protect",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__package__ or __name__, _EXPORTS)

if TYPE_CHECKING:
    from .commands import Command as Command
    from .commands import Found as Found
    from .commands import claimed as claimed
    from .commands import detect_command as detect_command
    from .defaults import DRAFT_RUN_DEFAULTS as DRAFT_RUN_DEFAULTS
    from .diffs import FileDiff as FileDiff
    from .diffs import file_diffs as file_diffs
    from .diffs import render_diffs as render_diffs
    from .edits.api import apply_reply as apply_reply
    from .errors import CodegenError as CodegenError
    from .errors import IllegalTransition as IllegalTransition
    from .errors import MetaCodeInvalid as MetaCodeInvalid
    from .extended import ExtendedConfig as ExtendedConfig
    from .intent import Detection as Detection
    from .intent import Intent as Intent
    from .intent import detect_intent as detect_intent
    from .intent import parse_tie_break as parse_tie_break
    from .intent import tie_break_prompt as tie_break_prompt
    from .intent_details import RequestDetails as RequestDetails
    from .intent_details import extract_details as extract_details
    from .intent_signals import candidate_names as candidate_names
    from .judge import judge_draft as judge_draft
    from .known_code import is_file_name as is_file_name
    from .loop import DRAFT_NAME as DRAFT_NAME
    from .loop import Committed as Committed
    from .loop import GaveUp as GaveUp
    from .loop import run_draft_loop as run_draft_loop
    from .loop import run_prepared_draft as run_prepared_draft
    from .loop_state import LoopConfig as LoopConfig
    from .loop_state import LoopDeps as LoopDeps
    from .loop_state import ProgressEvent as ProgressEvent
    from .metacode import MetaCode as MetaCode
    from .metacode import generate_metacode as generate_metacode
    from .outcomes import LoopStatus as LoopStatus
    from .phases import CodegenPhase as CodegenPhase
    from .phases import PhaseMachine as PhaseMachine
    from .ports import API_REFERENCE as API_REFERENCE
    from .ports import ContextSnippet as ContextSnippet
    from .ports import EpisodeRecord as EpisodeRecord
    from .ports import Notes as Notes
    from .refactor.edits import Refused as Refused
    from .refactor.move import move_symbol as move_symbol
    from .refactor.reading import rename_reading as rename_reading
    from .refactor.rename import rename_symbol as rename_symbol
    from .refactor.request import MoveRequest as MoveRequest
    from .refactor.request import RenameRequest as RenameRequest
    from .refactor.request import read_structural as read_structural
    from .refactor.task import apply_request as apply_request
    from .refactor.task import structural_metacode as structural_metacode
    from .related_tests import select_related_tests as select_related_tests
    from .replies import Aside as Aside
    from .replies import ReplyIntent as ReplyIntent
    from .replies import classify_reply as classify_reply
    from .replies import is_resume as is_resume
    from .replies import reply_aside as reply_aside
    from .replies import waiting_line as waiting_line
    from .report import CheckResult as CheckResult
    from .report import ValidationReport as ValidationReport
    from .sandbox.api import run_in_sandbox as run_in_sandbox
    from .sandbox.api import sandbox_capabilities as sandbox_capabilities
    from .sandbox.protect import Protection as Protection
    from .sandbox.protect import Protections as Protections
    from .sandbox.protect import SandboxPolicy as SandboxPolicy
    from .sandbox.run import SANDBOX_LAUNCHER as SANDBOX_LAUNCHER
    from .sandbox.run import SandboxResult as SandboxResult
    from .target_link import target_words as target_words
    from .utterance import Utterance as Utterance
    from .utterance import read_utterance as read_utterance
    from .validate import validate_draft as validate_draft
