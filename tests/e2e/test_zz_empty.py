import pytest
@pytest.mark.parametrize("i", range(20))
async def test_empty(harness, i):
    pass
