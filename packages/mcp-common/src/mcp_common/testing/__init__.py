"""Test kit for servers built on mcp-common: contract checks over a real registry, the golden
``tools/list``, an in-process SDK client, an argument fuzzer, and a server process's CPU watched
until it goes idle.

This package (with :mod:`mcp_common.adapter`) may import the ``mcp`` SDK; server code may not.
"""

from mcp_common.testing.attacks import (
    ANCESTOR_ENVIRON_THIEF,
    HARD_LINK_RULE,
    plant_hard_link,
    same_user_without_ptrace,
)
from mcp_common.testing.client import (
    call_tool_raw,
    everything_in,
    fetch_tools_list,
    http_client,
    in_process_client,
    result_text,
    stdio_client,
    wire_tools_list,
)
from mcp_common.testing.contract import (
    STATIC_CHECKS,
    SampleCall,
    Samples,
    call_samples,
    check_aliases,
    check_annotations,
    check_answers,
    check_descriptions,
    check_input_schemas,
    check_names,
    check_output_schemas,
    check_parameter_names,
    check_read_parity,
    contract_violations,
    run_contract_checks,
)
from mcp_common.testing.fuzz import CANARY_SECRET, answer_problems, fuzz_tools, payloads
from mcp_common.testing.golden import (
    UPDATE_VARIABLE,
    assert_golden_tools_list,
    canonical_tools_list,
    golden_path,
)
from mcp_common.testing.processes import cpu_seconds, process_logging_to, until_idle

__all__ = [
    "ANCESTOR_ENVIRON_THIEF",
    "CANARY_SECRET",
    "HARD_LINK_RULE",
    "STATIC_CHECKS",
    "UPDATE_VARIABLE",
    "SampleCall",
    "Samples",
    "answer_problems",
    "assert_golden_tools_list",
    "call_samples",
    "call_tool_raw",
    "canonical_tools_list",
    "check_aliases",
    "check_annotations",
    "check_answers",
    "check_descriptions",
    "check_input_schemas",
    "check_names",
    "check_output_schemas",
    "check_parameter_names",
    "check_read_parity",
    "contract_violations",
    "cpu_seconds",
    "everything_in",
    "fetch_tools_list",
    "fuzz_tools",
    "golden_path",
    "http_client",
    "in_process_client",
    "payloads",
    "plant_hard_link",
    "process_logging_to",
    "result_text",
    "run_contract_checks",
    "same_user_without_ptrace",
    "stdio_client",
    "until_idle",
    "wire_tools_list",
]
