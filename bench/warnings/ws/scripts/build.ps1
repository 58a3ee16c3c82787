# Build the Windows client.
dotnet restore
dotnet build -c Release
Write-Host "Built."
