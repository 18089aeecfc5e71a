"""Each environment's options are one typed record: read from its variables in one place, checked there
in one line, and kept as a mapping a run's record can embed and read back (`envs.provider.EnvOptions`)."""

from __future__ import annotations

import pytest

from envs import registry
from envs.alfworld.options import AlfworldOptions
from envs.base import EnvError
from envs.provider import EnvOptions
from envs.webshop.options import WebShopOptions


def test_webshop_options_come_from_their_variables_and_go_back_and_forth_as_a_mapping(tmp_path):
    environ = {"WEBSHOP_DATA": str(tmp_path), "WEBSHOP_PAGES": "recode", "WEBSHOP_PRICE_SEED": " 5 ",
               "WEBSHOP_SEARCH": "", "OPENAI_API_KEY": "sk-never-recorded"}
    options = WebShopOptions.from_environment(environ)
    assert options.to_mapping() == {"data": str(tmp_path), "pages": "recode", "price_seed": "5"}
    assert options.seed == 5 and options.analysis == "original" and not options.fallback_nouns
    assert WebShopOptions.from_mapping(options.to_mapping()) == options
    assert WebShopOptions.from_environment({}) == WebShopOptions()  # nothing set: every default


@pytest.mark.parametrize(("environ", "message"), [
    ({"WEBSHOP_PRICE_SEED": "five"}, "WEBSHOP_PRICE_SEED='five': give a whole number"),
    ({"WEBSHOP_PAGES": "html"}, "WEBSHOP_PAGES='html': use one of faithful, recode"),
    ({"WEBSHOP_SEARCH": "fuzzy"}, "WEBSHOP_SEARCH='fuzzy': use one of original, bundled"),
])
def test_a_bad_value_is_one_line_naming_its_variable(environ, message):
    with pytest.raises(EnvError) as raised:
        WebShopOptions.from_environment(environ)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_a_record_naming_an_option_this_version_lacks_is_refused_in_one_line():
    with pytest.raises(EnvError, match=r"WebShopOptions: no option 'colour' \(the record names one"):
        WebShopOptions.from_mapping({"colour": "red"})


def test_alfworld_options_and_each_provider_declares_its_record(tmp_path):
    options = AlfworldOptions.from_environment({"ALFWORLD_DATA": str(tmp_path), "RECODE_ALFWORLD_SPEEDUPS": "off"})
    assert options.to_mapping() == {"data": str(tmp_path), "speedups": "off"}
    assert options.data_root == tmp_path and not options.speedups_on
    assert AlfworldOptions.from_environment({"ALFWORLD_DATA": str(tmp_path / "absent")}).data_root is None
    assert registry.provider("webshop").options_type is WebShopOptions
    assert registry.provider("alfworld").options_type is AlfworldOptions
    assert registry.provider("sciworld").options_type is EnvOptions  # an environment without options
