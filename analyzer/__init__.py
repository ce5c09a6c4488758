"""TCPdebug-style passive analysis of TCP traces ([TCPDEBUG], ch. 3; analyzer/README.md).

    from analyzer import analyze_file, AnalyzerConfig, render_text
    report = analyze_file("run/sender.pcap", AnalyzerConfig(vantage="sender"))
    print(render_text(report))

or, frame by frame (time passed in, nothing read from a clock):

    a = Analyzer(AnalyzerConfig(vantage="path"))
    a.feed(time, frame_bytes)
    report = a.finish()
"""

from analyzer.cli import analyze_file
from analyzer.profiles import PROFILES, SenderProfile, get_profiles
from analyzer.report import CsvSink, render_text
from analyzer.trace import Analyzer, AnalyzerConfig, VANTAGES

__all__ = ["Analyzer", "AnalyzerConfig", "VANTAGES", "analyze_file", "render_text", "CsvSink",
           "PROFILES", "SenderProfile", "get_profiles"]
