"""Operations: starting, stopping and inspecting services that run over the lakehouse.

:mod:`~python_helpers.operations.thrift` manages a Spark Thrift Server on the local lakehouse
(``python -m python_helpers.operations.thrift start|stop|status``, ``make thrift-*``); cluster
operations belong here too.
"""
