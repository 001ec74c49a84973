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
    "Command": ".reading.commands",
    "Found": ".reading.commands",
    "claimed": ".reading.commands",
    "detect_command": ".reading.commands",
    "Suggestion": ".suggest",
    "suggest_command": ".suggest",
    "Detection": ".reading.intent",
    "Intent": ".reading.intent",
    "detect_intent": ".reading.intent",
    "parse_tie_break": ".reading.intent",
    "tie_break_prompt": ".reading.intent",
    "RequestDetails": ".reading.details",
    "extract_details": ".reading.details",
    "candidate_names": ".reading.signals",
    "name_terms": ".reading.repo_terms",
    "is_file_name": ".reading.known_code",
    "target_words": ".reading.target_link",
    "Aside": ".reading.replies",
    "ReplyIntent": ".reading.replies",
    "classify_reply": ".reading.replies",
    "is_apply": ".reading.replies",
    "is_resume": ".reading.replies",
    "reply_aside": ".reading.replies",
    "waiting_line": ".reading.replies",
    "Utterance": ".reading.utterance",
    "read_utterance": ".reading.utterance",
    # the conversation's rules: where a user stands, one reading per turn, one table
    "Situation": ".conversation.situation",
    "Stage": ".conversation.situation",
    "FileAnswer": ".conversation.corrections",
    "Kind": ".conversation.turn_reading",
    "Reading": ".conversation.turn_reading",
    "read_turn": ".conversation.turn_reading",
    "Action": ".conversation.rules",
    "Route": ".conversation.rules",
    "route": ".conversation.rules",
    "rules_markdown": ".conversation.rules",
    # a task's phases and its meta-code
    "CodegenPhase": ".loop.phases",
    "PhaseMachine": ".loop.phases",
    "MetaCode": ".metacode.model",
    "generate_metacode": ".metacode.generate",
    # the draft loop
    "Committed": ".loop.draft_loop",
    "DRAFT_NAME": ".loop.draft_loop",
    "GaveUp": ".loop.draft_loop",
    "run_draft_loop": ".loop.draft_loop",
    "run_prepared_draft": ".loop.draft_loop",
    "LoopConfig": ".loop.state",
    "LoopDeps": ".loop.state",
    "ProgressEvent": ".loop.state",
    "ExtendedConfig": ".loop.extended",
    "LoopStatus": ".loop.outcomes",
    "API_REFERENCE": ".ports",
    "ContextSnippet": ".ports",
    "EpisodeRecord": ".ports",
    "Notes": ".ports",
    "apply_reply": ".edits.api",
    "judge_draft": ".checks.judge",
    "FileDiff": ".diffs",
    "file_diffs": ".diffs",
    "render_diffs": ".diffs",
    # renames and moves by structure
    "Refused": ".refactor.edits",
    "move_symbol": ".refactor.move",
    "rename_symbol": ".refactor.rename",
    "move_reading": ".refactor.reading",
    "rename_reading": ".refactor.reading",
    "MoveRequest": ".refactor.request",
    "RenameRequest": ".refactor.request",
    "read_structural": ".refactor.request",
    "apply_request": ".loop.prepared",
    "structural_metacode": ".loop.prepared",
    # the model steps (each declared once: ``llm/steps.py``)
    "METACODE": ".metacode.steps",
    "GENERATE": ".steps",
    "JUDGE": ".steps",
    "REVIEW_DOCS": ".steps",
    "TIE_BREAK": ".steps",
    # validation and the sandbox
    "validate_draft": ".checks.validate",
    "select_related_tests": ".checks.related_tests",
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
    from .checks.judge import judge_draft as judge_draft
    from .checks.related_tests import select_related_tests as select_related_tests
    from .checks.validate import validate_draft as validate_draft
    from .conversation.corrections import FileAnswer as FileAnswer
    from .conversation.rules import Action as Action
    from .conversation.rules import Route as Route
    from .conversation.rules import route as route
    from .conversation.rules import rules_markdown as rules_markdown
    from .conversation.situation import Situation as Situation
    from .conversation.situation import Stage as Stage
    from .conversation.turn_reading import Kind as Kind
    from .conversation.turn_reading import Reading as Reading
    from .conversation.turn_reading import read_turn as read_turn
    from .defaults import DRAFT_RUN_DEFAULTS as DRAFT_RUN_DEFAULTS
    from .diffs import FileDiff as FileDiff
    from .diffs import file_diffs as file_diffs
    from .diffs import render_diffs as render_diffs
    from .edits.api import apply_reply as apply_reply
    from .errors import CodegenError as CodegenError
    from .errors import IllegalTransition as IllegalTransition
    from .errors import MetaCodeInvalid as MetaCodeInvalid
    from .loop.draft_loop import DRAFT_NAME as DRAFT_NAME
    from .loop.draft_loop import Committed as Committed
    from .loop.draft_loop import GaveUp as GaveUp
    from .loop.draft_loop import run_draft_loop as run_draft_loop
    from .loop.draft_loop import run_prepared_draft as run_prepared_draft
    from .loop.extended import ExtendedConfig as ExtendedConfig
    from .loop.outcomes import LoopStatus as LoopStatus
    from .loop.phases import CodegenPhase as CodegenPhase
    from .loop.phases import PhaseMachine as PhaseMachine
    from .loop.prepared import apply_request as apply_request
    from .loop.prepared import structural_metacode as structural_metacode
    from .loop.state import LoopConfig as LoopConfig
    from .loop.state import LoopDeps as LoopDeps
    from .loop.state import ProgressEvent as ProgressEvent
    from .metacode.generate import generate_metacode as generate_metacode
    from .metacode.model import MetaCode as MetaCode
    from .metacode.steps import METACODE as METACODE
    from .ports import API_REFERENCE as API_REFERENCE
    from .ports import ContextSnippet as ContextSnippet
    from .ports import EpisodeRecord as EpisodeRecord
    from .ports import Notes as Notes
    from .reading.commands import Command as Command
    from .reading.commands import Found as Found
    from .reading.commands import claimed as claimed
    from .reading.commands import detect_command as detect_command
    from .reading.details import RequestDetails as RequestDetails
    from .reading.details import extract_details as extract_details
    from .reading.intent import Detection as Detection
    from .reading.intent import Intent as Intent
    from .reading.intent import detect_intent as detect_intent
    from .reading.intent import parse_tie_break as parse_tie_break
    from .reading.intent import tie_break_prompt as tie_break_prompt
    from .reading.known_code import is_file_name as is_file_name
    from .reading.replies import Aside as Aside
    from .reading.replies import ReplyIntent as ReplyIntent
    from .reading.replies import classify_reply as classify_reply
    from .reading.replies import is_apply as is_apply
    from .reading.replies import is_resume as is_resume
    from .reading.replies import reply_aside as reply_aside
    from .reading.replies import waiting_line as waiting_line
    from .reading.repo_terms import name_terms as name_terms
    from .reading.signals import candidate_names as candidate_names
    from .reading.target_link import target_words as target_words
    from .reading.utterance import Utterance as Utterance
    from .reading.utterance import read_utterance as read_utterance
    from .refactor.edits import Refused as Refused
    from .refactor.move import move_symbol as move_symbol
    from .refactor.reading import move_reading as move_reading
    from .refactor.reading import rename_reading as rename_reading
    from .refactor.rename import rename_symbol as rename_symbol
    from .refactor.request import MoveRequest as MoveRequest
    from .refactor.request import RenameRequest as RenameRequest
    from .refactor.request import read_structural as read_structural
    from .report import CheckResult as CheckResult
    from .report import ValidationReport as ValidationReport
    from .sandbox.api import run_in_sandbox as run_in_sandbox
    from .sandbox.api import sandbox_capabilities as sandbox_capabilities
    from .sandbox.protect import Protection as Protection
    from .sandbox.protect import Protections as Protections
    from .sandbox.protect import SandboxPolicy as SandboxPolicy
    from .sandbox.run import SANDBOX_LAUNCHER as SANDBOX_LAUNCHER
    from .sandbox.run import SandboxResult as SandboxResult
    from .steps import GENERATE as GENERATE
    from .steps import JUDGE as JUDGE
    from .steps import REVIEW_DOCS as REVIEW_DOCS
    from .steps import TIE_BREAK as TIE_BREAK
    from .suggest import Suggestion as Suggestion
    from .suggest import suggest_command as suggest_command
